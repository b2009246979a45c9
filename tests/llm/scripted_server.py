"""A scripted OpenAI-compatible chat server for tests and benchmarks.

It answers both judge protocols of docs/protocol.md from rules: a sentence that holds a
criterion's marker word is judged inconsistent (0) on that criterion, everything else is
consistent (1). Every request is recorded (path, headers, body). Faults are injected from
a queue, one per request, so a test can script "429, then 500, then a good answer".
Usage counts tokens by the usual rule of thumb for BPE tokenizers, one token per four
characters, over every message and the response schema, so token totals are comparable
between protocols.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
import urllib.parse
import zlib
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CRITERIA = ("name", "type", "function", "context")
MARKERS = {"name": "BADNAME", "type": "BADTYPE", "function": "WRONGFUNC", "context": "OFFTOPIC"}
PAPER_TITLES = {
    "Name inconsistency": "name",
    "Type inconsistency": "type",
    "Functionality inconsistency": "function",
    "Irrelevant context": "context",
}
# 429 (with Retry-After), 500, hang (no answer until the server stops), truncated JSON,
# JSON inside prose or a fence, wrong sentence ids, the last sentence missing, an empty
# answer, and a 401 whose message repeats the key it was given.
FAULTS = (
    "429",
    "500",
    "hang",
    "truncated",
    "prose",
    "fenced",
    "wrong_ids",
    "missing",
    "empty",
    "echo_key_401",
    "echo_key_encoded_401",
)
_SENTENCE_LINE = re.compile(r"^\[S(\d+)\] (.*)$", re.MULTILINE)
# A responder's answer that makes the server stream an answer of ENDLESS_BYTES, 1 MiB at a
# time, for as long as the client reads (no Content-Length: the body ends when it closes).
ENDLESS = "\x00endless answer\x00"
ENDLESS_BYTES = 128 << 20  # 4 times the cap: a check that fails without it stays affordable
# What ``ScriptedServer.flood`` answers to every POST, whatever its path (a native
# provider's route, a proxy's absolute URL): an endless answer as above, or a gzip body
# of a few hundred KiB that decodes to ENDLESS_BYTES.
FLOODS = ("endless", "gzip")

# (sentence, criterion, sample index) -> 1 consistent / 0 inconsistent
Rule = Callable[[str, str, int], int]
# (request body, sample index) -> the text of one choice, or None
Responder = Callable[[dict, int], "str | None"]


def count_tokens(text: str) -> int:
    return -(-len(text) // 4)  # ceil(len / 4)


def marker_rule(sentence: str, criterion: str, sample: int) -> int:
    return 0 if MARKERS[criterion] in sentence else 1


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict


class ScriptedServer:
    """Start with ``with ScriptedServer() as server``; ``server.base_url`` is the api_base."""

    def __init__(
        self,
        rule: Rule = marker_rule,
        honour_n: bool = True,
        retry_after: str = "1",
        responder: Responder | None = None,
    ):
        self.rule = rule
        # Answers any other task (code generation, summaries): (body, sample) -> the text of
        # one choice, or None to fall back to the judge protocols.
        self.responder = responder
        self.honour_n = honour_n  # some servers (Ollama) ignore n and return one choice
        self.retry_after = retry_after
        self.delay_s = 0.0  # think time before every answer
        self.faults: deque[str] = deque()  # consumed one per request (see inject)
        self.always: str | None = None  # a fault on every request once the queue is empty
        self.requests: list[RecordedRequest] = []
        self.prompt_tokens = 0  # summed over every answered request
        self.in_flight = 0
        self.peak_in_flight = 0
        self.streamed_bytes = 0  # of ENDLESS answers, until the client stopped reading
        self.flood: str | None = None  # one of FLOODS: the answer to every POST
        self._samples: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> ScriptedServer:
        handler = type("Handler", (_Handler,), {"scripted": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._release.set()  # wake hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def inject(self, *faults: str, always: bool = False) -> None:
        """Queue ``faults`` for the next requests (or, with ``always``, for every request)."""
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault(s): {unknown}")
        with self._lock:
            if always:
                self.always = faults[0]
            else:
                self.faults.extend(faults)

    # --- answering ---------------------------------------------------------------------

    def _next_fault(self) -> str | None:
        with self._lock:
            return self.faults.popleft() if self.faults else self.always

    def _next_sample(self, body: dict) -> int:
        key = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
        with self._lock:
            sample = self._samples[key]
            self._samples[key] += 1
            return sample

    def answer(self, body: dict, fault: str | None) -> str:
        """The text of one choice for ``body``, shaped by ``fault``."""
        messages = body.get("messages", [])
        sample = self._next_sample(body)
        if self.responder is not None:
            scripted = self.responder(body, sample)
            if scripted is not None:
                return scripted
        user_text = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
        lines = _SENTENCE_LINE.findall(user_text)
        if not lines:
            return self._paper_answer(messages, sample)
        segments = []
        for number, sentence in lines:
            verdicts = {c: self.rule(sentence, c, sample) for c in CRITERIA}
            wrong = [c for c, v in verdicts.items() if v == 0]
            reason = f"the code contradicts this sentence ({', '.join(wrong)})" if wrong else ""
            ident = f"S{int(number) + 100}" if fault == "wrong_ids" else f"S{number}"
            segments.append({"id": ident, **verdicts, "reason": reason})
        if fault == "missing":
            segments.pop()
        text = json.dumps({"segments": segments})
        if fault == "truncated":
            return text[: len(text) // 2]
        if fault == "prose":
            return f"Here is my judgement of each sentence:\n{text}\nI hope this helps."
        if fault == "fenced":
            return f"```json\n{text}\n```"
        return text

    def _paper_answer(self, messages: list[dict], sample: int) -> str:
        system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
        criterion = next((c for title, c in PAPER_TITLES.items() if title in system), None)
        if criterion is None:
            return "I cannot tell which criterion to judge."
        return str(self.rule(messages[-1].get("content") or "", criterion, sample))

    def usage(self, body: dict, choices: list[str]) -> dict:
        prompt = sum(count_tokens(m.get("content") or "") + 4 for m in body.get("messages", []))
        if body.get("response_format"):
            prompt += count_tokens(json.dumps(body["response_format"], separators=(",", ":")))
        completion = sum(count_tokens(c) for c in choices)
        with self._lock:
            self.prompt_tokens += prompt
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedServer

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        server = self.scripted
        with server._lock:
            server.in_flight += 1
            server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
        try:
            self._answer(server)
        finally:
            with server._lock:
                server.in_flight -= 1

    def _answer(self, server: ScriptedServer) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send(400, {"error": {"message": "body is not JSON"}})
        with server._lock:
            server.requests.append(
                RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
        if server.flood == "endless":
            return self._stream_endless(server)
        if server.flood == "gzip":
            return self._send_gzip_bomb()
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        fault = server._next_fault()
        if fault == "429":
            return self._send(
                429,
                {"error": {"message": "rate limited", "type": "rate_limit"}},
                {"Retry-After": server.retry_after},
            )
        if fault == "500":
            return self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
        if fault == "echo_key_401":  # some servers repeat the key they were given
            given = self.headers.get("Authorization", "")
            return self._send(401, {"error": {"message": f"invalid key {given}", "type": "auth"}})
        if fault == "echo_key_encoded_401":  # ... or encode it first, or show a piece of it
            key = self.headers.get("Authorization", "").removeprefix("Bearer ")
            shown = (
                f"invalid key {urllib.parse.quote(key, safe='')}; as base64 "
                f"{base64.b64encode(('user:' + key).encode()).decode()}; starts {key[:13]}..."
            )
            return self._send(401, {"error": {"message": shown, "type": "auth"}})
        if fault == "hang":
            server._release.wait(timeout=60)
            return
        if server.delay_s:
            server._release.wait(timeout=server.delay_s)
        count = max(1, int(body.get("n") or 1)) if server.honour_n else 1
        choices = ["" if fault == "empty" else server.answer(body, fault) for _ in range(count)]
        if ENDLESS in choices:
            return self._stream_endless(server)
        self._send(
            200,
            {
                "id": f"chatcmpl-{time.monotonic_ns()}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": i,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                    for i, text in enumerate(choices)
                ],
                "usage": server.usage(body, choices),
            },
        )

    def _stream_endless(self, server: ScriptedServer) -> None:
        chunk = b"x" * (1 << 20)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"id":"endless","object":"chat.completion","choices":[')
            self.wfile.write(b'{"index":0,"message":{"role":"assistant","content":"')
            for _ in range(ENDLESS_BYTES // len(chunk)):
                self.wfile.write(chunk)
                with server._lock:
                    server.streamed_bytes += len(chunk)
            self.wfile.write(b'"},"finish_reason":"stop"}]}')
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what it was meant to do

    def _send_gzip_bomb(self) -> None:
        packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip framing
        chunk = b"x" * (1 << 20)
        data = b"".join(packer.compress(chunk) for _ in range(ENDLESS_BYTES // len(chunk)))
        data += packer.flush()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancelled call)
