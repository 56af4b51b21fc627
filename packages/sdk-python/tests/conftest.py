"""Fixtures: in-process fakes of the gateway (http.server in a thread) and the live gateway's settings."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scenario(id): the shared SDK scenario this test carries out")
    config.addinivalue_line("markers", "live: needs a running Paygate (PAYGATE_URL, PAYGATE_KEY, PAYGATE_SECRET)")


@dataclass
class Seen:
    """One request as the fake received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int = 200
    body: bytes | str | dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


HANG = "hang"  # never answer (until the test ends)
DROP = "drop"  # close the connection without an answer


def ok(result: Any, status: int = 200) -> Answer:
    return Answer(status, {"status": "ok", "result": result, "traceId": "trace-ok"})


def fault(status: int, code: str, detail: str | None = None, trace_id: str = "trace-fault") -> Answer:
    return Answer(status, {"status": "error", "fault": {"code": code, "detail": detail}, "traceId": trace_id})


class FakeGateway:
    """A server on a real socket answering from a script, one entry per request (the last repeats)."""

    def __init__(self) -> None:
        self.script: list[Answer | str] = []
        self.seen: list[Seen] = []
        self.released = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _any(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                fake.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                step = fake.script[min(len(fake.seen), len(fake.script)) - 1] if fake.script else ok({})
                if step == HANG:
                    fake.released.wait(30)
                    self.close_connection = True
                    return
                if step == DROP:
                    self.close_connection = True
                    self.connection.close()
                    return
                assert isinstance(step, Answer)
                raw = step.body
                if isinstance(raw, dict):
                    raw = json.dumps(raw)
                data = raw.encode("utf-8") if isinstance(raw, str) else (raw or b"")
                self.send_response(step.status)
                if isinstance(step.body, dict):
                    self.send_header("Content-Type", "application/json")
                for k, v in step.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[FakeGateway]:
    f = FakeGateway()
    yield f
    f.close()


class NoSleep:
    """Records the back-off delays instead of waiting them out."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


# ---- the live gateway --------------------------------------------------------------------


@dataclass
class Live:
    url: str
    key: str
    secret: str
    #: Where a receiver started by the tests can be reached by the gateway (callbacks to 127.0.0.1 allowed).
    callback_host: str


@pytest.fixture(scope="session")
def live() -> Live:
    url = os.environ.get("PAYGATE_URL")
    key = os.environ.get("PAYGATE_KEY")
    secret = os.environ.get("PAYGATE_SECRET")
    if not url or not key or not secret:
        pytest.skip("no live gateway: set PAYGATE_URL, PAYGATE_KEY and PAYGATE_SECRET")
    return Live(url.rstrip("/"), key, secret, os.environ.get("PAYGATE_CALLBACK_HOST", "127.0.0.1"))


class Proxy:
    """A forwarding proxy between the SDK and the live gateway: counts requests, may change bodies."""

    def __init__(self, upstream: str, rewrite: Callable[[bytes], bytes] | None = None) -> None:
        self.count = 0
        self.rewrite = rewrite
        proxy = self
        target = urllib.parse.urlsplit(upstream)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _any(self) -> None:
                proxy.count += 1
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                if proxy.rewrite and body:
                    body = proxy.rewrite(body)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                conn.request(self.command, self.path, body=body if body or self.command != "GET" else None, headers=headers)
                res = conn.getresponse()
                data = res.read()
                self.send_response(res.status)
                for k, v in res.getheaders():
                    # send_response wrote Date and Server already (the proxy runs on the same clock).
                    if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = do_PATCH = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def eventually(check: Callable[[], Any], seconds: float = 60, what: str = "condition") -> Any:
    """Polls a live gateway's outcome (a real process keeps real time)."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.25)
