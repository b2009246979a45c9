"""The names a project's Sphinx documentation defines, read statically (issue 22): pages'
object directives under their module and class, conf.py's nitpick_ignore (never run), and
what a cross-reference to them then is."""

from deep_folders import nested_folders
from file_trees import write_tree

from docfact.config import Settings
from docfact.graph import documentation
from docfact.graph.documentation import find_documentation, read_documentation
from docfact.runner import check_paths

CONFIG_PAGE = """
Configuration
=============

.. currentmodule:: flask

.. py:data:: SERVER_NAME

   The host name.

.. autoclass:: Config

   .. py:method:: from_file(path)

.. py:function:: url_for(endpoint)

```{py:data} APPLICATION_ROOT
```
"""

CONF = """
import os
open(os.path.join(os.path.dirname(__file__), "ran"), "w").write("conf.py was run")
nitpick_ignore = [("py:class", "werkzeug.Response"), ("py:data", 3)]
"""


def test_directives_are_placed_in_their_module_and_class(tmp_path):
    write_tree(tmp_path, {"docs/config.rst": CONFIG_PAGE, "docs/conf.py": CONF})
    docs = read_documentation(tmp_path)
    for name in (
        "flask.SERVER_NAME",
        "SERVER_NAME",
        "flask.Config.from_file",
        "Config.from_file",
        "from_file",
        "flask.url_for",
        "APPLICATION_ROOT",
        "~flask.Config",
        ".Config",
    ):
        assert docs.documents(name), name
    assert not docs.documents("flask.from_file")  # a method of Config, not of the module
    assert not docs.documents("SERVR_NAME")
    # conf.py is read, never run; its nitpick_ignore targets (strings only) count.
    assert docs.documents("werkzeug.Response") and not (tmp_path / "docs" / "ran").exists()
    assert docs.where["SERVER_NAME"] == (str(tmp_path / "docs" / "config.rst"), 7)
    assert docs.pages == 2
    # A name moved down its page changes the reading (the evidence points at its line).
    page = tmp_path / "docs" / "config.rst"
    page.write_text("\n" + page.read_text())
    moved = read_documentation(tmp_path)
    assert moved.digest != docs.digest and moved.where["SERVER_NAME"][1] == 8


def test_what_is_not_the_documentation_is_not_read(tmp_path, monkeypatch):
    outside = tmp_path / "secret.rst"
    outside.write_text(".. py:data:: LEAKED\n")
    write_tree(
        tmp_path / "proj",
        {
            "docs/_build/html/copy.rst": ".. py:data:: BUILT\n",
            "docs/index.rst": ".. py:data:: ONE\n",
            "docs/two.rst": ".. py:data:: TWO\n",
            "docs/three.rst": ".. py:data:: THREE\n",
        },
    )
    (tmp_path / "proj" / "docs" / "link.rst").symlink_to(outside)
    docs = read_documentation(tmp_path / "proj")
    assert docs.documents("ONE") and not docs.documents("BUILT") and not docs.documents("LEAKED")
    assert docs.documents("TWO") and docs.pages == 3  # the link is no page
    monkeypatch.setattr(documentation, "MAX_PAGES", 3)  # a repository of endless pages
    capped = read_documentation(tmp_path / "proj")  # index, link, three; two is left
    assert capped.documents("THREE") and not capped.documents("TWO")


def test_endless_names_and_long_ones_are_bounded(tmp_path, monkeypatch):
    many = "".join(f".. py:data:: NAME_{n}\n" for n in range(50))
    dotted = ".".join(["a"] * 5_000)  # each tail is kept: 5,000 tails of up to 10 KB
    write_tree(tmp_path, {"docs/a.rst": many, "docs/b.rst": f".. py:data:: {dotted}\n"})
    monkeypatch.setattr(documentation, "MAX_NAMES", 10)
    docs = read_documentation(tmp_path)
    assert len(docs.where) == 10 and not docs.documents("a.a")
    monkeypatch.setattr(documentation, "MAX_TOTAL_CHARACTERS", 10)  # the first page is more
    assert read_documentation(tmp_path).pages == 0


def test_a_documentation_folder_nested_too_deep_for_os_walk_is_read_to_a_depth(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.rst").write_text(".. py:data:: TOP\n")
    with nested_folders(tmp_path / "docs", 1800) as deep:  # os.walk recurses once per level
        (deep / "page.rst").write_text(".. py:data:: DEEP\n")
        docs = read_documentation(tmp_path)
    assert docs.documents("TOP") and not docs.documents("DEEP")


def test_the_documentation_is_found_up_to_the_projects_root(tmp_path):
    project = write_tree(tmp_path / "proj", {"docs/api.rst": ".. py:data:: X\n", "setup.cfg": ""})
    (project / "src" / "pkg").mkdir(parents=True)
    assert find_documentation(project / "src" / "pkg").documents("X")
    # Above a project's root is another project's documentation, not this one's.
    inner = write_tree(project / "vendor" / "lib", {"pyproject.toml": ""})
    assert not find_documentation(inner).pages
    # Outside any project (a file checked alone in a home folder), no ~/docs is read.
    home = write_tree(tmp_path / "home", {"docs/notes.rst": ".. py:data:: X\n"})
    (home / "scratch").mkdir()
    assert not find_documentation(home / "scratch").pages


def test_a_reference_to_a_documented_name_resolves_and_its_typo_has_evidence(tmp_path):
    write_tree(
        tmp_path,
        {
            "pyproject.toml": "",  # a project's root
            "docs/config.rst": CONFIG_PAGE,
            "pkg/__init__.py": "",
            "pkg/app.py": '''
            def build(endpoint):
                """Build a URL with :data:`SERVER_NAME`, :data:`APPLICATION_ROOT` and
                ``Config.from_file``; see :data:`SERVR_NAME`."""
                return endpoint
            ''',
        },
    )

    def found(preview):
        report = check_paths([tmp_path / "pkg"], Settings(preview=preview), tmp_path, None)
        return [(d["code"], d["message"].split("`")[1], d["evidence"]) for d in report.diagnostics]

    # Shown in preview too: the documented names are not unknown, they resolve.
    assert [f[:2] for f in found(True)] == [("DF107", "SERVR_NAME")]
    [(code, name, evidence)] = found(False)  # a near miss of a documented name: evidence
    assert (code, name) == ("DF107", "SERVR_NAME")
    assert evidence[0]["kind"] == "near miss" and evidence[0]["symbol"] == "SERVER_NAME"
    assert evidence[0]["path"].endswith("config.rst") and evidence[0]["line"] == 7
