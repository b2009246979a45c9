"""The project graph on multi-file projects: resolution, evidence, raises, drift."""

import textwrap
from pathlib import Path

import pytest
from file_trees import write_tree

from docfact.cache import Cache
from docfact.config import Settings
from docfact.runner import check_paths, file_outcomes, project_graph

FILES = {
    "shop/__init__.py": "",
    "shop/errors.py": '''
        class ShopError(Exception):
            """Base of the shop's errors."""

        class OutOfStock(ShopError):
            """Nothing left."""

        class Closed(ShopError):
            """The shop is closed."""
    ''',
    "shop/store.py": '''
        from .errors import OutOfStock as NoStock
        from . import pricing
        import shop.pricing as prices


        def take(stock, count):
            """Take items off the shelf.

            Raises:
                OutOfStock: when there are not enough.
            """
            if count > stock:
                raise NoStock(count)
            return stock - count


        class Base:
            def check(self):
                """Check the base."""
                return take(1, 1)


        class Store(Base):
            def sell(self, count):
                """Sell some.

                Raises:
                    OutOfStock: through take().
                    Closed: never, in fact.
                    ValueError: unknown to the project, so never judged.
                """
                self.check()
                return pricing.total(take(10, count))

            def loop(self):
                """Calls itself and raises OutOfStock through take.

                Raises:
                    OutOfStock: through the cycle.
                """
                self.loop()
                return prices.total(self.check())
    ''',
    "shop/pricing.py": '''
        from .store import take


        def total(amount):
            """Price an amount (imports store: a cycle)."""
            return amount * 2


        def discount_rate():
            """The discount, as a fraction."""
            return 0.1
    ''',
}


@pytest.fixture
def project(tmp_path):
    return write_tree(tmp_path, FILES)


def graph_of(root):
    return project_graph(file_outcomes([root / "shop"], Settings(), root, None))


def test_resolution_through_relative_aliased_imports_self_and_bases(project):
    graph = graph_of(project).networkx()
    graph_edges = {(a, b, kind) for a, b, kinds in graph.edges(data="kinds") for kind in kinds}
    assert ("shop.store.take", "shop.errors.OutOfStock", "instantiates") in graph_edges
    assert ("shop.store.Store", "shop.store.Base", "inherits") in graph_edges
    assert (
        "shop.store.Store.sell",
        "shop.store.Base.check",
        "calls",
    ) in graph_edges  # via the base
    assert (
        "shop.store.Store.sell",
        "shop.pricing.total",
        "calls",
    ) in graph_edges  # `from . import`
    assert ("shop.store.Store.loop", "shop.pricing.total", "calls") in graph_edges  # aliased module
    assert ("shop.pricing", "shop.store.take", "imports") in graph_edges  # the cycle
    assert ("shop.errors.OutOfStock", "shop.errors.ShopError", "inherits") in graph_edges


def test_evidence_is_the_one_hop_neighbourhood_with_code_and_docstrings(project):
    evidence = {e.symbol: e for e in graph_of(project).evidence("shop.store.Store.sell")}
    assert set(evidence) >= {"shop.store.Base.check", "shop.pricing.total", "shop.store.take"}
    take = evidence["shop.store.take"]
    assert take.path.endswith("store.py") and take.line == 7
    assert "Take items off the shelf." in take.text and "def take(stock, count):" in take.text
    assert "shop.store.Store.loop" not in evidence  # two hops away is not evidence


def test_exception_raised_by_a_callee_counts_and_unknown_exceptions_never_fire(project):
    report = check_paths([project / "shop"], Settings(), project, None)
    found = {(d["symbol"], d["code"], d["message"].split("`")[1]) for d in report.diagnostics}
    assert found == {("shop.store.Store.sell", "DF302", "Closed")}


def test_drift_through_the_cli_when_a_raise_disappears(project):
    store = project / "shop" / "store.py"
    store.write_text(store.read_text().replace("raise NoStock(count)", "return 0"))
    report = check_paths([project / "shop"], Settings(), project, None)
    symbols = {(d["symbol"], d["message"].split("`")[1]) for d in report.diagnostics}
    assert ("shop.store.take", "OutOfStock") in symbols
    assert ("shop.store.Store.sell", "OutOfStock") in symbols  # its callee no longer raises


def test_drift_when_a_function_in_another_file_is_renamed(project):
    # A near miss of the new name is the evidence (without one, or the history of a git
    # repository, the old name is unknown: see tests/unit/test_evidence.py).
    (project / "shop" / "notes.py").write_text(
        'def note():\n    """Uses `discount_rate` from pricing."""\n'
    )
    names = Settings(select=("DF1", "DF102"), ignore=("DF2", "DF3"))  # DF102 by its code
    assert check_paths([project / "shop"], names, project, None).diagnostics == []
    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("def discount_rate", "def discount_rates"))
    report = check_paths([project / "shop"], names, project, None)
    assert [(d["code"], d["symbol"]) for d in report.diagnostics] == [("DF102", "shop.notes.note")]


def test_graph_facts_persist_in_the_cache_and_a_corrupt_cache_is_rebuilt(project, tmp_path):
    cache_dir = tmp_path / "cache"
    first = file_outcomes([project / "shop"], Settings(), project, Cache(cache_dir))
    warm = Cache(cache_dir)
    second = file_outcomes([project / "shop"], Settings(), project, warm)
    assert [o for _, o in first] == [o for _, o in second]
    assert len(warm.get_many([])) == 0 and (cache_dir / "results.sqlite3").is_file()
    (cache_dir / "results.sqlite3").write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        Path(str(cache_dir / "results.sqlite3") + suffix).unlink(missing_ok=True)
    rebuilt = file_outcomes([project / "shop"], Settings(), project, Cache(cache_dir))
    assert [o for _, o in rebuilt] == [o for _, o in first]
    assert list(cache_dir.glob("results.sqlite3.corrupt-*"))


def test_incremental_update_replaces_one_file(project):
    graph = graph_of(project)
    before = graph.generation
    outcomes = dict(
        (job.display, o)
        for job, o in file_outcomes([project / "shop" / "pricing.py"], Settings(), project, None)
    )
    facts = next(iter(outcomes.values()))["facts"]
    facts = {**facts, "path": str(project / "shop" / "pricing.py")}
    graph.set_file(facts)
    assert graph.generation > before
    assert graph.evidence("shop.store.Store.sell")  # still linked after the update


def test_a_method_called_on_a_parameter_may_raise(tmp_path):
    (tmp_path / "shelf.py").write_text(
        textwrap.dedent('''
        class OutOfStock(Exception):
            pass

        class Shelf:
            def take(self, count):
                raise OutOfStock(count)

        def sell(shelf, count):
            """Sell.

            Raises:
                OutOfStock: when the shelf is empty.
            """
            return shelf.take(count)
    ''')
    )
    assert check_paths([tmp_path], Settings(), tmp_path, None).diagnostics == []


def test_class_attribute_positions_survive_long_docstrings_before_them(tmp_path):
    (tmp_path / "paint.py").write_text(
        textwrap.dedent(
            '''
        def long():
            """'''
            + "A long docstring. " * 200
            + '''"""

        class Paint:
            """Paint.

            Args:
                colour: The colour.
            """
            def __init__(self, **options):
                self.colour = options["colour"]

            def show(self):
                """Shows `self.colour`."""
    '''
        )
    )
    assert check_paths([tmp_path], Settings(), tmp_path, None).diagnostics == []


def test_inheritance_cycles_and_bases_read_from_self_end(tmp_path):
    (tmp_path / "cycle.py").write_text(
        textwrap.dedent('''
        class Oops(Exception):
            pass

        class A(B):
            def run(self):
                """Run.

                Raises:
                    Oops: never.
                """
                return self.go()

        class B(A):
            def go(self):
                class Inner(self.Base):
                    pass
                return Inner
    ''')
    )
    report = check_paths([tmp_path], Settings(), tmp_path, None)
    assert [d["code"] for d in report.diagnostics] == ["DF302"]


def test_evidence_for_library_symbols_is_read_from_their_source(tmp_path):
    (tmp_path / "fmt.py").write_text(
        textwrap.dedent('''
        import textwrap
        from json import dumps as to_json

        def show(data):
            """Show data."""
            return textwrap.dedent(to_json(data))
    ''')
    )
    graph = graph_of_tree(tmp_path)
    evidence = {e.symbol: e for e in graph.evidence("fmt.show")}
    assert "Remove any common leading whitespace" in evidence["textwrap.dedent"].text
    assert evidence["textwrap.dedent"].path.endswith("textwrap.py")
    assert "json.dumps(obj" in evidence["json.dumps"].text


def graph_of_tree(root):
    return project_graph(file_outcomes([root], Settings(), root, None))


def test_a_standing_raises_finding_shows_the_callees_it_looked_through(project):
    report = check_paths([project / "shop"], Settings(), project, None)
    [finding] = [d for d in report.diagnostics if d["code"] == "DF302"]
    symbols = {e["symbol"] for e in finding["evidence"]}
    assert {"shop.store.Base.check", "shop.store.take", "shop.pricing.total"} <= symbols


def test_an_override_inheriting_a_docstring_that_names_other_parameters(tmp_path):
    (tmp_path / "base.py").write_text(
        textwrap.dedent('''
        class Store:
            def load(self, key, default=None):
                """Load a value.

                Args:
                    key: What to load.
                    default: What to return when there is nothing.
                """
    ''')
    )
    (tmp_path / "child.py").write_text(
        textwrap.dedent("""
        from base import Store

        class Cache(Store):
            def load(self, name, default=None):
                return name

        class Same(Store):
            def load(self, key, default=None):
                return key

        class Quiet(Store):
            def load(self, name, default=None):  # docfact: ignore[DF106]
                return name
    """)
    )
    report = check_paths([tmp_path], Settings(), tmp_path, None)
    [finding] = report.diagnostics
    assert finding["code"] == "DF106" and finding["symbol"] == "child.Cache.load"
    assert finding["start"] == {"line": 5, "column": 9}
    assert "`key`" in finding["message"] and "base.Store.load" in finding["message"]
    assert finding["evidence"][0]["symbol"] == "base.Store.load"


def test_classes_in_annotations_are_evidence(tmp_path):
    (tmp_path / "orders.py").write_text(
        textwrap.dedent('''
        from typing import Optional

        class Order:
            """An order."""

        def total(order: Optional[Order], rate: float) -> float:
            """The order's total."""
            return 0.0
    ''')
    )
    evidence = {e.symbol: e for e in graph_of_tree(tmp_path).evidence("orders.total")}
    assert set(evidence) == {"orders.Order"}
    assert evidence["orders.Order"].text.startswith("# annotated with: orders.Order")


def test_module_and_class_variables_read_by_a_function_are_evidence(tmp_path):
    (tmp_path / "net.py").write_text(
        textwrap.dedent('''
        TIMEOUT = 30  # seconds

        class Client:
            retries: int = 3

            def fetch(self, url):
                """Fetch with the default timeout."""
                return (url, TIMEOUT, self.retries)
    ''')
    )
    evidence = {e.symbol: e for e in graph_of_tree(tmp_path).evidence("net.Client.fetch")}
    assert set(evidence) == {"net.TIMEOUT", "net.Client.retries"}
    assert "TIMEOUT = 30" in evidence["net.TIMEOUT"].text
    assert evidence["net.Client.retries"].line == 5


def test_a_warm_run_reads_the_project_result_back_and_any_changed_file_invalidates_it(
    project, tmp_path
):
    (project / "shop" / "notes.py").write_text(
        'def note():\n    """Uses `discount_rate` from pricing."""\n'
    )
    names = Settings(select=("DF1", "DF102"), ignore=("DF2", "DF3"))  # DF102 by its code
    cache_dir = tmp_path / "cache"
    cold = check_paths([project / "shop"], names, project, Cache(cache_dir))
    warm = check_paths([project / "shop"], names, project, Cache(cache_dir))
    assert warm.diagnostics == cold.diagnostics == []
    assert (warm.files_checked, warm.units_checked) == (cold.files_checked, cold.units_checked)
    assert warm.cache_hits == cold.files_checked
    # A definition renamed in one file: the unchanged file that names it is now wrong.
    pricing = project / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("def discount_rate", "def discount_rates"))
    changed = check_paths([project / "shop"], names, project, Cache(cache_dir))
    assert [(d["code"], d["symbol"]) for d in changed.diagnostics] == [("DF102", "shop.notes.note")]
    again = check_paths([project / "shop"], names, project, Cache(cache_dir))
    assert again.diagnostics == changed.diagnostics


def test_instance_attributes_are_entities_with_writes_and_reads_edges(tmp_path):
    package = tmp_path / "till"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(
        textwrap.dedent('''\
        class Register:
            def __init__(self, owner):
                """Open the register. Examples may say self.fake = 1."""
                self.owner = owner
                self.total = 0
        ''')
    )
    (package / "shop.py").write_text(
        textwrap.dedent('''\
        from .base import Register


        class Till(Register):
            def ring(self, amount):
                """Add ``amount`` to the total."""
                self.total += amount
                self.last = amount

            def report(self):
                """Say who owns the till and what it holds."""
                return f"{self.owner}: {self.total}"
        ''')
    )
    graph = project_graph(file_outcomes([package], Settings(), tmp_path, None))
    assert graph.kind("till.base.Register.total") == "attribute"
    assert graph.kind("till.base.Register.fake") is None  # docstrings are not code
    assert graph.kind("till.shop.Till.last") == "attribute"
    evidence = {e.symbol: e for e in graph.evidence("till.shop.Till.report")}
    owner = evidence["till.base.Register.owner"]  # read through the base class
    assert owner.text.startswith("# reads: till.base.Register.owner") and owner.line == 4
    assert "self.owner = owner" in owner.text
    ring = {e.symbol: e.text.splitlines()[0] for e in graph.evidence("till.shop.Till.ring")}
    assert ring["till.shop.Till.last"] == "# writes: till.shop.Till.last"
    assert ring["till.shop.Till.total"] == "# writes: till.shop.Till.total"
    graph.remove_file(str(package / "shop.py"))
    assert graph.kind("till.shop.Till.last") is None


def test_star_imports_and_library_reexports_resolve(tmp_path):
    package = tmp_path / "kit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tools.py").write_text('def helper(x):\n    """Help with x."""\n    return x\n')
    (package / "use.py").write_text(
        textwrap.dedent('''\
        import os
        from .tools import *


        def run(path):
            """Help with the path, joined."""
            return helper(os.path.join(path, "x"))
        ''')
    )
    graph = project_graph(file_outcomes([package], Settings(), tmp_path, None))
    evidence = {e.symbol: e for e in graph.evidence("kit.use.run")}
    assert evidence["kit.tools.helper"].text.startswith("# calls: kit.tools.helper(x)")
    # os.path is the platform's path module (posixpath here), read statically.
    join = evidence["os.path.join"]
    assert Path(join.path).name in ("posixpath.py", "ntpath.py") and "(from " in join.text


def test_java_wildcard_imports_resolve_within_the_project(tmp_path):
    model = tmp_path / "src" / "com" / "acme" / "model"
    shop = tmp_path / "src" / "com" / "acme" / "shop"
    model.mkdir(parents=True)
    shop.mkdir(parents=True)
    (model / "Order.java").write_text(
        textwrap.dedent("""\
        package com.acme.model;
        public class Order {
            /** Makes one. @return the order */
            public static Order create() { return new Order(); }
        }
        """)
    )
    (shop / "Shop.java").write_text(
        textwrap.dedent("""\
        package com.acme.shop;
        import java.util.*;
        import com.acme.model.*;
        class Shop {
            /** Orders one. */
            void order() { Order.create(); }
        }
        """)
    )
    graph = graph_of_tree(tmp_path)
    evidence = {e.symbol: e for e in graph.evidence("com.acme.shop.Shop.order")}
    assert evidence["com.acme.model.Order.create"].text.startswith(
        "# calls: com.acme.model.Order.create"
    )
