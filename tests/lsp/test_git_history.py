"""The editor tells a stale name by its git history, as the CLI does: the history is read in
the background after start-up (and again when HEAD moves), and then the findings it backs
appear with no keystroke, in pull and push clients. A shallow clone has no history: only
near misses count, and nothing is said as an error. Real git repositories, a real server."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from lsp_harness import TIMEOUT, capabilities, wait_until
from lsprotocol import types

STALE = '''\
def reserve(item, count):
    """Reserve stock; fails when `qty` is larger than what is left."""
    return item, count
'''
TOLD = "`qty` was a parameter of `reserve` until"
# A near miss (`cuont`, two letters of `count` swapped) needs no history.
NEAR_MISS = '''\
def restock(item, count):
    """Add `cuont` items to the stock."""
    return item, count
'''


# Every commit of these repositories is dated 2023-05-02; no user's git config is read.
GIT_ENV = {
    "GIT_AUTHOR_DATE": "2023-05-02T10:00:00",
    "GIT_COMMITTER_DATE": "2023-05-02T10:00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": "/usr/bin:/bin",
}


def _git(root: Path, *args: str) -> str:
    """What ``git -C root args`` prints."""
    command = ["git", "-C", str(root), *args]
    env = {**GIT_ENV, "HOME": str(root)}
    return subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout


def _commit(root: Path, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def _repository(root: Path, renamed: bool) -> Path:
    """A repository whose stock.py had ``reserve(item, qty)``; with ``renamed``, a second
    commit renamed the parameter to ``count`` and left the docstring as it was."""
    _git(root, "init", "-q")
    stock = root / "shop" / "stock.py"
    stock.write_text(STALE.replace("count", "qty") + NEAR_MISS)
    _commit(root, "first")
    if renamed:
        stock.write_text(STALE + NEAR_MISS)
        _commit(root, "rename qty to count")
    return stock


def _pull(client, uri: str, previous: str | None):
    return client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
        )
    )


async def _pull_until_told(client, uri: str, previous: str | None, seen: int):
    """As VS Code: pull (with the last result id), and again at every refresh after the
    ``seen``-th, until the history's finding is there."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        report = await _pull(client, uri, previous)
        if report.kind == "full":
            previous = report.result_id
            if any(TOLD in d.message for d in report.items):
                return report
        await wait_until(
            lambda seen=seen: client.diagnostic_refresh_count > seen,
            timeout=max(0.1, deadline - time.monotonic()),
            what="a workspace/diagnostic/refresh after the history was read",
        )
        seen = client.diagnostic_refresh_count


def _logged(client, needle: str):
    return lambda: any(needle in m.message for m in client.log_messages)


async def test_a_commit_that_renamed_a_parameter_tells_the_stale_name_after_the_pull(
    start, workspace
):
    """The history is read for the new HEAD when a ref changes; the client's re-pull with
    its previous result id gets the finding, with when and what replaced it."""
    stock = _repository(workspace, renamed=False)
    stock.write_text(STALE + NEAR_MISS)  # renamed, not committed yet: no evidence
    client = await start(caps=capabilities(pull=True, refresh=True, watched_dynamic=True))
    await wait_until(_logged(client, "git history of"), what="the history at start-up read")
    uri = client.open(stock)
    before = await _pull(client, uri, None)
    assert before.kind == "full" and not any("qty" in d.message for d in before.items)
    assert [d.code for d in before.items] == ["DF102"]  # the near miss stands without history

    _commit(workspace, "rename qty to count")
    ref = workspace / ".git" / _git(workspace, "symbolic-ref", "HEAD").strip()
    seen = client.diagnostic_refresh_count
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=ref.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    after = await _pull_until_told(client, uri, before.result_id, seen)
    [told] = [d for d in after.items if TOLD in d.message]
    commit = _git(workspace, "rev-parse", "--short", "HEAD").strip()
    # What replaced it: the one parameter the commit added that the signature did not keep.
    assert told.message.endswith(f"until {commit} (2023-05-02); `count` replaced it")
    assert told.code == "DF102" and after.result_id != before.result_id
    # The watchers ask for git's refs too, or an editor would never say that HEAD moved.
    globs = [
        w["globPattern"]
        for r in client.registrations
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        for w in r.register_options["watchers"]
    ]
    assert "**/.git/refs/**" in globs and "**/.git/HEAD" in globs


async def test_the_history_read_at_start_up_reaches_a_pull_client_without_a_keystroke(
    start, workspace
):
    stock = _repository(workspace, renamed=True)
    client = await start(caps=capabilities(pull=True, refresh=True))
    uri = client.open(stock)
    report = await _pull_until_told(client, uri, None, client.diagnostic_refresh_count)
    assert [d.code for d in report.items] == ["DF102", "DF102"]  # the near miss too


async def test_a_push_client_is_sent_the_finding_the_history_tells(start, workspace):
    stock = _repository(workspace, renamed=True)
    client = await start()
    uri = client.open(stock)
    shown = await client.diagnostics_for(
        uri, version=1, until=lambda found: any(TOLD in d.message for d in found)
    )
    assert sorted(d.code for d in shown) == ["DF102", "DF102"]


async def test_a_pull_client_that_cannot_be_refreshed_is_sent_what_the_history_tells(
    start, workspace
):
    """Neovim 0.11 pulls but cannot be asked to pull again: the finding the history tells,
    which comes after its first pull, is pushed (and not pulled too: never shown twice)."""
    stock = _repository(workspace, renamed=True)
    client = await start(caps=capabilities(pull=True))
    uri = client.open(stock)
    await _pull(client, uri, None)
    await wait_until(
        lambda: any(TOLD in d.message for p in client.published_for(uri) for d in p.diagnostics),
        what="the history's finding pushed",
    )
    pulled = await _pull(client, uri, None)
    assert [d.code for d in pulled.items] == ["DF102"]  # the near miss only
    assert not any(TOLD in d.message for d in pulled.items)


async def test_a_shallow_clone_counts_near_misses_only_and_says_no_error(
    start, tmp_path, workspace
):
    origin = workspace
    _repository(origin, renamed=True)
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", origin.resolve().as_uri(), str(clone)],
        check=True,
        capture_output=True,
    )
    client = await start(caps=capabilities(pull=True, refresh=True), folders=[clone])
    await wait_until(_logged(client, "no git history for"), what="the history found missing")
    uri = client.open(clone / "shop" / "stock.py")
    report = await _pull(client, uri, None)
    [near] = report.items
    assert near.code == "DF102" and "did you mean `count`?" in near.message
    assert not any("qty" in d.message for d in report.items)
    assert client.messages == []  # nothing shown to the user: a shallow clone is normal
