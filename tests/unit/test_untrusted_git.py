"""A checked repository's git configuration runs nothing: `check --diff` and the history of
names (both through ``source/untrusted_git.py``) on real repositories whose ``.git/config``
and ``.gitattributes`` name programs that would leave a marker file."""

import json
import subprocess
import sys
from pathlib import Path

from docfact_cli import docfact_check

STALE = '''def restock(item, amount):
    """Add stock.

    Args:
        item: The item.
        ammount: How many.
    """
    return item
'''
# docfact's own peak memory at exit (VmHWM, KiB: the process's own, not its children's,
# nor the test's from before the exec, which ru_maxrss keeps)
MEASURED = (
    "import atexit, re, runpy, sys\n"
    "atexit.register(lambda: print('peak', re.search(r'VmHWM:\\s+(\\d+)', "
    "open('/proc/self/status').read())[1], file=sys.stderr))\n"
    "sys.argv[0] = 'docfact'\n"
    "runpy.run_module('docfact', run_name='__main__')\n"
)


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root), *args],
        input=stdin,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return done.stdout.decode().strip()


def check_diff(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", MEASURED, "check", ".", "--diff", "HEAD", "--no-cache"]
        + ["--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def hostile_configuration(root: Path) -> list[Path]:
    """Every program a .git/config and .gitattributes may have git run, each leaving its
    own marker; the markers."""
    markers = {name: root.parent / f"{root.name}-{name}" for name in ("fsmonitor", "clean")}
    markers |= {n: root.parent / f"{root.name}-{n}" for n in ("eq", "textconv", "ext", "pager")}
    (root / ".gitattributes").write_text("*.py diff=evil filter=evil\nshop.py filter=a=b\n")
    git(root, "config", "core.fsmonitor", f"sh -c 'touch {markers['fsmonitor']}'")
    git(root, "config", "filter.evil.clean", f"sh -c 'touch {markers['clean']}; cat'")
    git(root, "config", "filter.evil.required", "true")
    # a filter whose name holds "=": `-c filter.a=b.clean=` would set another key
    git(root, "config", "filter.a=b.clean", f"sh -c 'touch {markers['eq']}; cat'")
    git(root, "config", "diff.evil.textconv", f"sh -c 'touch {markers['textconv']}; cat \"$0\"'")
    git(root, "config", "diff.external", f"sh -c 'touch {markers['ext']}'")
    git(root, "config", "core.pager", f"sh -c 'touch {markers['pager']}; cat'")
    return list(markers.values())


def test_check_diff_runs_no_program_the_repository_configures(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "old.py").write_text('"""Old."""\n\n\ndef f():\n    """Do it."""\n')
    (root / "shop.py").write_text(STALE.replace("ammount", "amount"))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    # A rename git must read the working tree for, and an edit that makes restock stale.
    git(root, "mv", "old.py", "new.py")
    with (root / "new.py").open("a") as new:
        new.write("# moved\n")
    (root / "shop.py").write_text(STALE)
    markers = hostile_configuration(root)

    done = check_diff(root)

    assert done.returncode == 1, done.stderr
    codes = [(d["code"], d["symbol"]) for d in json.loads(done.stdout)["diagnostics"]]
    assert codes == [("DF101", "shop.restock")]
    assert [m.name for m in markers if m.exists()] == []


def test_history_runs_nothing_and_skips_a_huge_blob(tmp_path):
    """The history of names (``git log -p``) of a repository with the same configuration,
    and a .py file of 100 MB on one line (100 KB in git): nothing runs, and the file is a
    binary one to git's diff, so its line never reaches docfact."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    huge = git(root, "hash-object", "-w", "--stdin", stdin=b"#" + b"x" * 100_000_000 + b"\n")
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{huge},huge.py")
    (root / "shop.py").write_text(STALE)
    git(root, "add", "shop.py")
    git(root, "commit", "-qm", "first")
    (root / "shop.py").write_text(STALE.replace("item", "thing"))
    markers = hostile_configuration(root)
    read = (
        "import re, sys\n"
        "from pathlib import Path\n"
        "from docfact.history import NameHistory\n"
        "NameHistory.of(Path(sys.argv[1]))._read()\n"
        "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1])\n"
    )

    done = subprocess.run(
        [sys.executable, "-c", read, str(root)], capture_output=True, text=True, timeout=300
    )

    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 200_000, f"docfact held {done.stdout.strip()} KiB"
    assert [m.name for m in markers if m.exists()] == []


def test_check_diff_does_not_read_a_huge_old_blob(tmp_path):
    """A file's text at REF can be 100 MB that git keeps in 100 KB (one long comment): the
    size is asked first, and such a blob is not read (the file counts as all new)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    huge = git(root, "hash-object", "-w", "--stdin", stdin=b"#" + b"x" * 100_000_000 + b"\n")
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{huge},shop.py")
    git(root, "commit", "-qm", "huge")
    (root / "shop.py").write_text(STALE)

    done = check_diff(root)

    assert done.returncode == 1, done.stderr
    codes = [(d["code"], d["symbol"]) for d in json.loads(done.stdout)["diagnostics"]]
    assert codes == [("DF101", "shop.restock")]
    kib = int(done.stderr.split("peak ")[1].split()[0])
    assert kib < 200_000, f"docfact held {kib} KiB: {done.stderr}"


RESTOCK = (
    "def restock(item, {name}):\n"
    '    """Add ``amount`` to the stock of ``item``."""\n'
    "    return item + {name}\n"
)
SIGNED = (
    "tree {tree}\nparent {parent}\nauthor t <t@t> 1700000000 +0000\n"
    "committer t <t@t> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n"
    " -----END PGP SIGNATURE-----\n\nrename amount to quantity\n"
)


def test_a_signed_commit_runs_no_signature_program_the_repository_names(tmp_path):
    """`log.showSignature` and `gpg.program` in a tampered .git/config: git log ran the
    repository's "gpg" as the user for every signed commit, when `docfact check` looked
    up the history of a stale name. A mailmap read from /dev/zero held each log for its
    timeout."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "shop.py").write_text(RESTOCK.format(name="amount"))
    git(root, "add", "shop.py")
    git(root, "commit", "-qm", "first")
    (root / "shop.py").write_text(RESTOCK.format(name="quantity"))
    git(root, "add", "shop.py")
    commit = SIGNED.format(tree=git(root, "write-tree"), parent=git(root, "rev-parse", "HEAD"))
    signed = git(root, "hash-object", "-t", "commit", "-w", "--stdin", stdin=commit.encode())
    git(root, "update-ref", "HEAD", signed)
    marker = tmp_path / "gpg-ran"
    verifier = tmp_path / "gpg"
    verifier.write_text(f"#!/bin/sh\ntouch {marker}\ncat >/dev/null\nexit 1\n")
    verifier.chmod(0o755)
    git(root, "config", "log.showSignature", "true")
    git(root, "config", "gpg.program", str(verifier))
    assert git(root, "log", "-1", "--format=%s") and marker.exists()  # git alone runs it
    marker.unlink()
    git(root, "config", "mailmap.file", "/dev/zero")

    done = docfact_check("shop.py", "--format", "json", "--select", "DF102", cwd=root)

    assert not marker.exists(), "the repository's gpg.program ran"
    [finding] = json.loads(done.stdout)["diagnostics"]
    assert "`amount` was a parameter of `restock` until" in finding["message"], finding
