"""A webhook receiver for tests: a real HTTP server on loopback that answers scripted
statuses and keeps every request, and the Standard Webhooks verification written again
here from the specification, sharing no code with the service (nor with the
``standardwebhooks`` package the service signs with)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: How far a webhook-timestamp may be from the receiver's clock (the specification's 5 min).
TOLERANCE_SECONDS = 300


def reference_signature(secret: str, msg_id: str, timestamp: str, body: bytes) -> str:
    """``v1,`` + base64(HMAC-SHA256(secret bytes, "{id}.{timestamp}.{body}")), the secret
    being the base64 after its ``whsec_`` prefix (the specification's "Signature scheme")."""
    key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret)
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def signed_by(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """Whether a request carries a valid signature of ``body`` by ``secret``, sent within
    the tolerance of now: any of the space-separated signatures may match."""
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = reference_signature(secret, msg_id, timestamp, body)
    return any(hmac.compare_digest(given, expected)
               for given in headers["webhook-signature"].split(" "))


@dataclass
class Received:
    """One request as the receiver got it (header names lower-cased)."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Receiver:
    """The server's script (``statuses`` answered in turn, then ``then``) and what came."""

    statuses: list[int] = field(default_factory=list)
    then: int = 200
    #: seconds to wait before answering (a slow receiver), or per request in turn
    delay: float = 0.0
    delays: list[float] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def arrived(self, request: Received) -> float:
        """Keep ``request`` (as it arrives, answered or not); how long to wait first."""
        with self.lock:
            self.received.append(request)
            return self.delays.pop(0) if self.delays else self.delay

    def answer(self) -> int:
        with self.lock:
            return self.statuses.pop(0) if self.statuses else self.then

    def ids(self) -> list[str]:
        with self.lock:
            return [r.headers["webhook-id"] for r in self.received]

    def wait_for(self, count: int, timeout: float) -> list[Received]:
        """Block until ``count`` requests came (AssertionError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.02)
        raise AssertionError(f"{len(self.received)} requests came, not {count}")


@contextmanager
def receiving(receiver: Receiver | None = None, **script: Any) -> Iterator[Receiver]:
    """Serve ``receiver`` (or a new one with ``script``) on a free loopback port."""
    got = receiver or Receiver(**script)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            request = Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                               body, time.time())
            time.sleep(got.arrived(request))
            status = got.answer()
            self.send_response(status)
            self.send_header("Content-Length", "0")
            if 300 <= status < 400:
                self.send_header("Location", f"http://127.0.0.1:{got.port}/elsewhere")
            self.end_headers()

        def log_message(self, *args: Any) -> None:  # quiet
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    got.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()
