"""The rules that apply to Java: what fires (on the smallest wrong span) and what must not."""

import textwrap

from docfact.config import Settings
from docfact.engine import analyze, facts_of, resolve
from docfact.graph.build import ProjectGraph
from docfact.rule_settings import FileRules, suppressions


def check(source, *others, select=()):
    """Findings for ``source`` (Shop.java), with ``others`` as more files of the project."""
    settings = Settings(select=select, preview=True)
    project = ProjectGraph()
    for index, other in enumerate(others):
        project.set_file(
            facts_of(analyze(textwrap.dedent(other), f"Other{index}.java", "", settings))
        )
    source = textwrap.dedent(source)
    analysis = analyze(source, "Shop.java", "", settings)
    shown = FileRules.of(
        settings, "Shop.java", suppressions(analysis.module.units, analysis.module_name)
    )
    project.set_file(facts_of(analysis))
    return [
        (f.code, source[f.span.start : f.span.end], f)
        for f in shown.apply(resolve(analysis.findings, project))
    ]


def codes(source, *others, **kwargs):
    return [(code, text) for code, text, _ in check(source, *others, **kwargs)]


# --- DF101 unknown-parameter -------------------------------------------------------------


def test_df101_param_with_near_miss_fix():
    found = check("""
        class Shop {
            /**
             * Adds stock.
             *
             * @param item the item
             * @param ammount how many
             */
            void restock(String item, int amount) {}
        }
    """)
    assert [(c, t) for c, t, _ in found] == [("DF101", "ammount")]
    finding = found[0][2]
    assert finding.fix.replacement == "amount" and finding.symbol == "Shop.restock"


def test_df101_type_parameters_and_record_components():
    assert (
        codes("""
        /**
         * A pair.
         *
         * @param <A> the first type
         * @param <B> the second type
         * @param first the first
         * @param second the second
         */
        record Pair<A, B>(A first, B second) {
            /**
             * Swaps.
             * @param <C> unused
             */
            <C> Pair<B, A> swap() { return new Pair<>(second, first); }
        }
    """)
        == []
    )
    assert codes("""
        /**
         * A box.
         *
         * @param <E> the element type
         */
        class Box<T> {}
    """) == [("DF101", "E")]


def test_df101_fix_inside_angle_brackets():
    found = check("""
        class Shop {
            /**
             * Maps.
             *
             * @param <Rx> result
             */
            <R> R map() { return null; }
        }
    """)
    assert [(c, t) for c, t, _ in found] == [("DF101", "Rx")]


def test_df101_and_df501_self_and_cls_are_ordinary_java_names():
    assert codes(
        """
        class Shop {
            /**
             * Annotates.
             *
             * @param cls the class
             * @param self this shop
             */
            void annotate(Class<?> cl) {}

            /**
             * Loads.
             *
             * @param name the name
             */
            void load(String name, Class<?> cls) {}
        }
    """,
        select=("DF5",),
    ) == [("DF101", "cls"), ("DF101", "self"), ("DF501", "Annotates."), ("DF501", "Loads.")]


# --- DF102 unresolved-name ({@code}) ---------------------------------------------------


def test_df102_code_name_that_is_nowhere():
    assert codes("""
        package shop;
        class Shop {
            /**
             * Sells items; see {@code total}.
             *
             * @param quantity how many, at most {@code limit}
             */
            void sell(int quantity) { int total = quantity; }
        }
    """) == [("DF102", "limit")]


def test_df102_in_prose_only_near_misses_of_parameters():
    assert codes("""
        class Shop {
            /** Sells {@code quantiti} items, as {@code invokedynamic} would. */
            void sell(int quantity) {}
        }
    """) == [("DF102", "quantiti")]


def test_df102_not_for_parameters_fields_java_names_or_other_files():
    assert (
        codes(
            """
        package shop;
        class Shop {
            private int stock;
            /**
             * Uses {@code quantity}, {@code stock}, {@code this.stock}, {@code null},
             * {@code Integer.MAX_VALUE}, {@code String}, {@code x < 0}, {@code hashCode()}
             * and {@code Helper}.
             */
            void sell(int quantity) {}
        }
    """,
            """
        package shop;
        class Helper {}
    """,
        )
        == []
    )


# --- DF105 unresolved-link ---------------------------------------------------------------


def test_df105_member_and_type_with_near_miss():
    found = codes("""
        package shop;
        import java.util.List;
        class Shop {
            /** Like {@link #sel(int)} but for a {@link Lst} of {@link Basket}. */
            void sellAll(List<Integer> counts) { sell(counts.get(0)); }
            void sell(int count) {}
        }
    """)
    assert found == [("DF105", "sel"), ("DF105", "Lst"), ("DF105", "Basket")]


def test_df105_resolved_or_unknowable_targets():
    assert (
        codes(
            """
        package shop;
        import java.util.List;
        class Shop {
            /**
             * See {@link #sell(int)}, {@link #stock}, {@link Shop#sell}, {@link List#size()},
             * {@link java.util.Map}, {@link Basket}, {@link #equals(Object)} and
             * {@linkplain Inner#deep() deep}.
             */
            void sellAll() {}
            void sell(int count) {}
            int stock;
            static class Inner { void deep() {} }
        }
    """,
            """
        package shop;
        class Basket {}
    """,
        )
        == []
    )
    # A class with supertypes may inherit the member from outside the project.
    assert (
        codes("""
        class Shop extends java.util.AbstractList<String> {
            /** Unlike {@link #modCount}. */
            void f() {}
        }
    """)
        == []
    )


def test_df105_see_value_and_linkplain_targets():
    found = check("""
        package shop;
        class Shop {
            static final int LIMIT = 10;
            /**
             * Sells at most {@value #LIMT} items, as {@linkplain #sel(int) selling} does.
             *
             * @param count how many
             * @see #sell(int) selling one
             * @see Shop#restok
             * @see Basket#clear()
             * @see #LIMIT
             */
            void sellAll(int count) { sell(count); }
            void sell(int count) {}
            void restock() {}
        }
    """)
    assert [(c, t) for c, t, _ in found] == [
        ("DF105", "LIMT"),
        ("DF105", "sel"),
        ("DF105", "restok"),
        ("DF105", "Basket"),
    ]
    see = found[2][2]
    assert see.fix.replacement == "restock" and see.sentence == "Shop#restok"


def test_df105_see_titles_links_and_external_types_are_silent():
    assert (
        codes(
            """
        package shop;
        import org.acme.Ledger;
        class Shop {
            /**
             * Sells, with the value {@value} of nothing in particular.
             *
             * @see "The Shopkeeper's Handbook"
             * @see <a href="https://example.com/shop">the shop</a>
             * @see Ledger#post(int)
             * @see java.util.List#sizes()
             * @see Basket
             */
            void sell() {}
        }
    """,
            """
        package shop;
        class Basket {}
    """,
        )
        == []
    )


def test_field_comments_are_checked_for_names_and_links():
    found = check("""
        package shop;
        class Shop {
            private int stock;
            /** At most {@code stok} items; see {@link #restok()} and {@link #stock}. */
            static final int LIMIT = 10;
            void restock() {}
            enum Size {
                /** Bigger than {@link #MEDUM}. */
                LARGE,
                MEDIUM
            }
        }
    """)
    assert [(c, t) for c, t, _ in found] == [
        ("DF102", "stok"),
        ("DF105", "restok"),
        ("DF105", "MEDUM"),
    ]
    assert found[0][2].symbol == "shop.Shop.LIMIT" and found[0][2].fix.replacement == "stock"


def test_method_rules_never_fire_on_fields():
    assert codes(
        """
        class Shop {
            /**
             * Returns a list of the counts, {@code true} when open, unlike {@link #nothing}.
             *
             * @param count how many
             * @return {@code true} if there are any
             * @throws IllegalStateException if closed
             * @throws java.io.IOException if reading fails
             */
            int counts = 0;
        }
    """,
        select=("ALL",),
    ) == [("DF105", "nothing")]  # the comment is checked, as a field's


def test_wildcard_imports_of_jdk_and_project_packages_resolve():
    found = codes(
        """
        package com.acme.shop;
        import java.util.*;
        import java.util.concurrent.*;
        import com.acme.model.*;
        class Shop {
            /**
             * Like a {@link BitSet}, a {@link Flow} and an {@link Order}, not a {@link Lst}
             * nor an {@link Ordr}.
             *
             * @param seen a {@code BitSet} of {@code Order}s, not an {@code Ordr}
             */
            void sell(int seen) {}
        }
    """,
        """
        package com.acme.model;
        public class Order {}
    """,
    )
    assert found == [("DF102", "Ordr"), ("DF105", "Lst"), ("DF105", "Ordr")]


def test_wildcard_imports_from_outside_the_project_and_jdk_leave_names_unknown():
    assert (
        codes("""
        package com.acme.shop;
        import org.acme.ledger.*;
        import static org.acme.Money.*;
        class Shop {
            /**
             * Posts to a {@link Ledger}; see {@link Journal#post(int)}.
             *
             * @param amount in {@code Cents}
             */
            void sell(int amount) {}
        }
    """)
        == []
    )


def test_package_documentation_in_package_info():
    package_info = """
        /**
         * The shop: a {@link Cart} of {@link Itm}s; see {@link org.acme.Ledger}.
         *
         * @see Cart#add(int)
         * @see Crt
         */
        @Deprecated
        package shop;
    """
    cart = """
        package shop;
        class Cart { void add(int count) {} }
    """
    found = check(package_info, cart)
    assert [(c, t) for c, t, _ in found] == [("DF105", "Itm"), ("DF105", "Crt")]
    assert found[0][2].symbol == "shop"
    assert (
        codes(package_info.replace("package shop;", "package shop;  // docfact: ignore"), cart)
        == []
    )
    # Its wildcard imports count, whichever file of the package the graph read last.
    settings = Settings()
    info = analyze(
        textwrap.dedent("""
        /** The shop's {@link Ledger}. */
        package shop;
        import org.acme.*;
    """),
        "package-info.java",
        "",
        settings,
    )
    project = ProjectGraph()
    project.set_file(facts_of(info))
    project.set_file(facts_of(analyze(textwrap.dedent(cart), "Cart.java", "", settings)))
    assert [f.code for f in info.findings] == ["DF105"] and resolve(info.findings, project) == []
    # Elsewhere a comment before the package declaration is the file's header.
    assert (
        codes("""
        /** Copyright {@link Nobody}. */
        package shop;
        class Cart {}
    """)
        == []
    )


def test_markdown_comments_are_checked():
    assert codes("""
        package shop;
        class Shop {
            /// Sells `quantiti` items of a [Lst#size()], like [the cart][Crt] and [#sel(int)].
            /// See [Optional], [Shop#sell(int)], [the site][site] and `invokedynamic`.
            ///
            /// [site]: https://example.com
            ///
            /// @param quantity how many, at most `limit`
            /// @return nothing
            void sell(int quantity) {}
        }
    """) == [
        ("DF102", "quantiti"),
        ("DF102", "limit"),
        ("DF105", "Lst"),
        ("DF105", "Crt"),
        ("DF105", "sel"),
        ("DF207", "@return nothing"),
    ]


def test_markdown_code_keeps_tags_as_text_and_labels_ignore_case():
    assert (
        codes("""
        package shop;
        class Shop {
            /// Writes links as `{@link Nope}`, and [the guide][Guide.md].
            ///
            /// ```
            /// {@link AlsoNope}
            /// ```
            ///
            /// [guide.md]: https://example.com/guide
            void sell(int quantity) {}
        }
    """)
        == []
    )


# --- DF207 returns-documented-for-void ---------------------------------------------------


def test_df207_void_method_and_constructor():
    found = check("""
        class Shop {
            /**
             * Makes a shop.
             *
             * @return the shop
             */
            Shop() {}

            /**
             * Closes it.
             *
             * @return whether it was open
             */
            void close() {}
        }
    """)
    assert [(c, t) for c, t, _ in found] == [
        ("DF207", "@return the shop"),
        ("DF207", "@return whether it was open"),
    ]
    assert "constructor" in found[0][2].message


def test_df207_not_for_values():
    assert (
        codes("""
        class Shop {
            /** {@return whether it is open} */
            boolean isOpen() { return true; }
            /** Nothing. */
            void close() {}
        }
    """)
        == []
    )


# --- DF303 exception-never-thrown -------------------------------------------------------


def test_df303_checked_exception_not_declared():
    found = check("""
        class Shop {
            /**
             * Loads.
             *
             * @throws java.io.IOException if reading fails
             * @throws java.io.FileNotFoundException if there is no file
             */
            void load() throws java.io.FileNotFoundException { read(); }
        }
    """)
    assert [(c, t) for c, t, _ in found] == []  # a subclass is declared: both may be thrown
    found = check("""
        class Shop {
            /**
             * Loads.
             *
             * @throws IOException if reading fails
             * @throws InterruptedException if interrupted
             */
            void load() throws InterruptedException { read(); }
        }
    """)
    assert [(c, t) for c, t, _ in found] == [("DF303", "IOException")]
    assert found[0][2].condition is None


def test_df303_unchecked_not_thrown_by_body_or_callees():
    assert codes("""
        class Shop {
            private int stock;
            /**
             * The stock.
             *
             * @return the stock
             * @throws IllegalStateException if closed
             */
            int stock() { return check(stock); }

            private int check(int value) { return value; }
        }
    """) == [("DF303", "IllegalStateException")]


def test_df303_not_when_something_may_throw_it():
    thrown = """
        class Shop {
            /**
             * Sells.
             * @throws IllegalArgumentException if negative
             */
            void sell(int n) { if (n < 0) throw new NumberFormatException("n"); }
            /**
             * Sells.
             * @throws IllegalStateException if closed
             */
            void sellAll() { helper(); }
            /**
             * Sells.
             * @throws UnsupportedOperationException always
             */
            void later() { Util.run(); }
            /**
             * Sells.
             * @throws NullPointerException if null
             */
            void nothing(String s) { }
            /**
             * Sells.
             * @throws IllegalStateException if closed
             */
            void rethrow() { try { helper(); } catch (RuntimeException e) { throw e; } }
            /**
             * Sells.
             * @throws IllegalStateException if closed
             */
            abstract void abstractly();
            /**
             * Sells.
             * @throws ShopException if closed
             */
            void unknown() { }
            /**
             * Sells.
             * @throws IllegalStateException if closed
             */
            void viaDocumentedCallee() { Guard.check(); }
            private void helper() { throw new IllegalStateException(); }
        }
    """
    guard = """
        class Guard {
            /**
             * Checks.
             * @throws IllegalStateException when it fails
             */
            static void check() { }
        }
    """
    assert codes(thrown, guard) == []


def test_df303_project_exception_through_callee_in_another_file():
    cart = """
        package shop;
        class Cart {
            /**
             * Pays.
             * @throws SoldOut if an item is gone
             */
            void pay() throws SoldOut { Stock.take(); }
            /**
             * Counts.
             * @throws SoldOut if an item is gone
             */
            int count() { return 0; }
        }
    """
    stock = """
        package shop;
        class Stock {
            static void take() throws SoldOut { throw new SoldOut(); }
        }
    """
    sold_out = """
        package shop;
        class SoldOut extends Exception {}
    """
    assert codes(cart, stock, sold_out) == [("DF303", "SoldOut")]


def test_python_rules_stay_python():
    assert (
        codes("""
        class Shop {
            /**
             * The names; raises nothing.
             *
             * @throws IllegalStateException if closed
             */
            @Deprecated
            java.util.Map<String, Integer> names() { return other(); }
        }
    """)
        == []
    )


# --- DF205 return-claim-mismatch ----------------------------------------------------------


def test_df205_claims_against_declared_java_types():
    found = check("""
        class Shop {
            /**
             * Counts the items.
             *
             * @return {@code true} if there are any
             */
            int count() { return 0; }

            /**
             * Returns a list of the names.
             */
            java.util.Map<String, Integer> names() { return null; }
        }
    """)
    assert [(c, t) for c, t, _ in found] == [("DF205", "true"), ("DF205", "list")]
    assert "declared `int count(...)`" in found[0][2].message


def test_df205_not_for_fitting_or_unknown_types():
    assert (
        codes("""
        class Shop {
            /** @return {@code true} if there are any */
            boolean any() { return true; }
            /** Returns a list of the names. */
            java.util.List<String> names() { return null; }
            /** @return a string, or {@code null} if there is none */
            String name() { return null; }
            /** @return {@code true} if there are any */
            Boolean maybe() { return null; }
            /** Returns a list of the names. */
            String[] array() { return null; }
            /** Returns whether it is open. */
            <T> T whatever() { return null; }
        }
    """)
        == []
    )
