"""Language-server latency and memory (issue 3's targets), over real stdio JSON-RPC.

- edit -> diagnostics: time from sending ``didChange`` to receiving the matching
  ``publishDiagnostics``, minus the debounce, on the largest files of the standard library,
  for edits in a docstring and edits to code that bind a new name (target p95 <= 50 ms);
- start -> first diagnostics for an opened file (target <= 1 s);
- resident memory after 10,000 edits within 10% of after 100.

Run: .venv/bin/python bench/lsp_latency.py [--edits 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

LARGE_FILES = ("_pydecimal.py", "typing.py", "inspect.py", "argparse.py", "subprocess.py")
DEBOUNCE_MS = 250


class Client:
    """A minimal LSP client: enough to open, edit and wait for diagnostics."""

    def __init__(self, cache_dir: str):
        env = {**os.environ, "DOCFACT_CACHE_DIR": cache_dir}
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "docfact", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.next_id = 0

    def send(self, method: str, params: dict, request: bool = False) -> int | None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def receive(self) -> dict:
        length = 0
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise EOFError("the server stopped")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        message = json.loads(self.process.stdout.read(length))
        if "id" in message and "method" in message:  # a request from the server: answer it
            self.reply(message["id"])
        return message

    def reply(self, request_id) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": None}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def wait_for(self, predicate) -> dict:
        while True:
            message = self.receive()
            if predicate(message):
                return message

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def diagnostics_for(uri: str, version: int):
    return lambda m: (
        m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri
        and m["params"].get("version") == version
    )


def start(client: Client, root: Path) -> None:
    client.send(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "capabilities": {},
            "initializationOptions": {"docfact": {"debounceMs": DEBOUNCE_MS}},
        },
        request=True,
    )
    client.wait_for(lambda m: m.get("id") == 1)
    client.send("initialized", {})


def edit_latencies(client: Client, path: Path, edits: int, where: str) -> list[float]:
    """Edit the file again and again, waiting for each publish: ``where`` is "docstring"
    (type and delete a space in a docstring) or "code" (add and remove a statement that
    binds a new name, so the module's names change with every edit)."""
    uri = path.as_uri()
    text = path.read_text()
    client.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    client.wait_for(diagnostics_for(uri, 1))
    lines = text.splitlines()
    if where == "docstring":
        line = next(i for i, text_line in enumerate(lines) if '"""' in text_line and i > 20)
        column, typed = 0, lambda version: " "
    else:
        line = next(
            i
            for i, text_line in enumerate(lines)
            if text_line.startswith("        return ") and i > 20
        )
        column, typed = 8, lambda version: f"typed_{version} = 0; "
    samples = []
    for version in range(2, edits + 2):
        inserting = version % 2 == 0
        inserted = typed(version) if inserting else ""
        end = column if inserting else column + len(typed(version - 1))
        change = {
            "range": {
                "start": {"line": line, "character": column},
                "end": {"line": line, "character": end},
            },
            "text": inserted,
        }
        sent = time.perf_counter()
        client.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        client.wait_for(diagnostics_for(uri, version))
        samples.append((time.perf_counter() - sent) * 1000 - DEBOUNCE_MS)
    client.send("textDocument/didClose", {"textDocument": {"uri": uri}})
    return samples


def memory_growth(client: Client, path: Path, edits: int) -> tuple[int, int]:
    """RSS after 100 rapid edits and after ``edits`` (no waiting: the debounce absorbs them)."""
    uri = path.as_uri()
    text = path.read_text()
    client.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
    )
    client.wait_for(diagnostics_for(uri, 1))
    after_100 = 0
    for version in range(2, edits + 2):
        inserting = version % 2 == 0
        change = {
            "range": {
                "start": {"line": 0, "character": 0},
                "end": {"line": 0, "character": 0 if inserting else 1},
            },
            "text": "#" if inserting else "",
        }
        client.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        if version % 500 == 0 or version == 101:
            client.wait_for(diagnostics_for(uri, version))
            if version == 101:
                after_100 = client.rss_kib()
    client.wait_for(diagnostics_for(uri, edits + 1))
    return after_100, client.rss_kib()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=40, help="timed edits per file")
    arguments = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        client = Client(str(root / "cache"))
        try:
            start(client, root)
            first_file = stdlib / LARGE_FILES[0]
            uri = first_file.as_uri()
            client.send(
                "textDocument/didOpen",
                {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": first_file.read_text(),
                    }
                },
            )
            client.wait_for(diagnostics_for(uri, 1))
            first = time.perf_counter() - client.started
            client.send("textDocument/didClose", {"textDocument": {"uri": uri}})
            rows, everything = [], []
            for where in ("docstring", "code"):
                for name in LARGE_FILES:
                    samples = edit_latencies(client, stdlib / name, arguments.samples, where)
                    everything += samples
                    rows.append((f"{name} {where}", statistics.median(samples), _p95(samples)))
            after_100, after_all = memory_growth(client, stdlib / "typing.py", arguments.edits)
        finally:
            client.close()
    print(
        f"{'file, edit':<26} {'median ms':>10} {'p95 ms':>8}"
        f"   (edit -> diagnostics, minus {DEBOUNCE_MS} ms debounce)"
    )
    for name, median, p95 in rows:
        print(f"{name:<26} {median:>10.1f} {p95:>8.1f}")
    p95 = _p95(everything)
    growth = after_all / after_100 - 1 if after_100 else float("nan")
    print(
        f"\nall files and edits: p95 {p95:.1f} ms (target <= 50): {'PASS' if p95 <= 50 else 'FAIL'}"
    )
    print(
        f"start -> first diagnostics: {first * 1000:.0f} ms (target <= 1000): "
        f"{'PASS' if first <= 1 else 'FAIL'}"
    )
    print(
        f"RSS after 100 edits {after_100 / 1024:.1f} MiB, after {arguments.edits}: "
        f"{after_all / 1024:.1f} MiB, growth {growth:+.1%} (target within 10%): "
        f"{'PASS' if abs(growth) <= 0.10 else 'FAIL'}"
    )
    return 0


def _p95(samples: list[float]) -> float:
    return sorted(samples)[max(0, int(len(samples) * 0.95) - 1)]


if __name__ == "__main__":
    sys.exit(main())
