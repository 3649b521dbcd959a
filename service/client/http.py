"""The client proper: transport with retries, and the calls of every endpoint (one seat's
session is in ``seats.py``).

Design choices, and why:

* ``http.client`` with one persistent connection per thread and client: a bot
  makes a request every few milliseconds, and a new TCP connection per request
  would cost more than the request itself. Threads never share a connection.
* Retries: ``503`` and ``429`` are retried after ``Retry-After`` (seconds or an
  HTTP date, capped by ``max_backoff``), as are dropped connections when the
  request is safe to repeat (a ``GET``, anything carrying an ``Idempotency-Key``,
  or a request that failed on a reused keep-alive connection before the server
  answered, which it therefore never saw). Everything else is raised as
  :class:`ApiError` with the problem's ``code``.
* Every action carries ``If-Match`` (the version the bot decided on: a stale
  decision is refused with ``412``, never applied to a position the bot did not
  see) and a fresh ``Idempotency-Key`` that stays the same across the retries of
  that one action (so a move whose response was lost is not applied twice).
* Waiting for a turn is the long-poll ``GET /v1/games/{id}?wait=turn``: the
  request parks in the server until this seat may act (the others' moves wake it
  inside the server only), so an idle bot costs one open request per turn, not a
  polling loop. ``?wait_version=N`` waits for any change (spectators use it).
"""

from __future__ import annotations

import email.utils
import http.client
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlencode, urlsplit

import orjson

from .errors import ApiError, TransportError
from .seats import CreatedGame, Seat
from .types import Event, GameView

__all__ = ["ApiError", "Client", "ClientStats", "CreatedGame", "Seat", "TransportError"]

#: Statuses that mean "not now": retried after Retry-After.
RETRY_STATUSES = frozenset({429, 503})
#: Dropped-connection errors worth one more try on a fresh connection.
_DROPPED = (
    http.client.RemoteDisconnected,
    http.client.BadStatusLine,
    http.client.IncompleteRead,
    ConnectionResetError,
    ConnectionAbortedError,
    BrokenPipeError,
    ConnectionRefusedError,
    socket.timeout,
    TimeoutError,
)


@dataclass
class ClientStats:
    """Counters and latencies a benchmark or a match runner reads; shared by many clients."""

    requests: int = 0
    retries: int = 0
    actions: int = 0
    action_seconds: list[float] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, kind: str, seconds: float, retried: int) -> None:
        with self._lock:
            self.requests += 1
            self.retries += retried
            if kind == "act":
                self.actions += 1
                self.action_seconds.append(seconds)


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    body: Any


def _retry_after(value: str | None, default: float) -> float:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return default
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    return max(0.0, when.timestamp() - time.time())


class Client:
    """A connection to one service. Thread-safe: each thread gets its own connection."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 15.0,
        retries: int = 8,
        max_backoff: float = 30.0,
        stats: ClientStats | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path
        self.timeout = timeout
        self.retries = retries
        self.max_backoff = max_backoff
        self.stats = stats
        self._sleep = sleep
        self._local = threading.local()

    # -- transport -------------------------------------------------------------------

    def _connection(self, timeout: float) -> tuple[http.client.HTTPConnection, bool]:
        """This thread's connection (``reused`` tells whether it served a request before)."""
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        reused = conn is not None
        if conn is None:
            cls = (
                http.client.HTTPSConnection if self._scheme == "https"
                else http.client.HTTPConnection
            )
            conn = cls(self._host, self._port, timeout=timeout)
            self._local.conn = conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn, reused

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self._local.conn = None

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        self._drop_connection()

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        kind: str = "other",
    ) -> Response:
        """Send one request, retrying what is safe to retry; raise :class:`ApiError` on >= 400."""
        url = self._prefix + path
        if query:
            url += "?" + urlencode({k: v for k, v in query.items() if v is not None})
        hdrs = {"Accept": "application/json", "User-Agent": "three-thirteen-client/1"}
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        payload = None
        if body is not None:
            payload = orjson.dumps(body)
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        safe = method == "GET" or "Idempotency-Key" in hdrs
        wait = timeout if timeout is not None else self.timeout
        retried = 0
        started = time.perf_counter()
        while True:
            conn, reused = self._connection(wait)
            try:
                conn.request(method, url, body=payload, headers=hdrs)
                raw = conn.getresponse()
                data = raw.read()
            except _DROPPED as exc:
                self._drop_connection()
                # a reused keep-alive connection the server had closed: it never saw the request
                stale = reused and isinstance(
                    exc, http.client.RemoteDisconnected | BrokenPipeError | ConnectionResetError
                )
                if (safe or stale) and retried < self.retries:
                    retried += 1
                    if not stale:
                        self._sleep(min(0.05 * 2**retried, self.max_backoff))
                    continue
                raise TransportError(f"{method} {url}: {exc!r}") from exc
            except OSError as exc:
                self._drop_connection()
                raise TransportError(f"{method} {url}: {exc!r}") from exc
            resp_headers = {k.lower(): v for k, v in raw.getheaders()}
            if raw.will_close:
                self._drop_connection()
            if raw.status in RETRY_STATUSES and retried < self.retries:
                retried += 1
                self._sleep(min(_retry_after(resp_headers.get("retry-after"), 1.0),
                                self.max_backoff))
                continue
            break
        if self.stats is not None:
            self.stats.record(kind, time.perf_counter() - started, retried)
        parsed: Any = orjson.loads(data) if data else None
        if raw.status >= 400:
            raise ApiError(raw.status, parsed if isinstance(parsed, dict) else {}, resp_headers)
        return Response(raw.status, resp_headers, parsed)

    def stream(self, path: str, *, token: str | None = None, after: int = 0,
               read_timeout: float = 60.0) -> Iterator[dict[str, Any]]:
        """The messages of one NDJSON stream (a game's, ``/v1/games/{id}/stream``, or an
        account's, ``/v1/me/stream``) from the cursor ``after`` until the server ends it
        (the ``end`` message is the last one yielded): what to resume from is the last
        ``event``'s ``seq``. A connection of its own (a stream holds it for minutes), read
        line by line; heartbeats (empty lines) are skipped, and a silence longer than
        ``read_timeout`` (several heartbeats) is a :class:`TransportError`."""
        cls = (http.client.HTTPSConnection if self._scheme == "https"
               else http.client.HTTPConnection)
        conn = cls(self._host, self._port, timeout=read_timeout)
        headers = {"Accept": "application/x-ndjson", "User-Agent": "three-thirteen-client/1",
                   "Last-Event-ID": str(after)}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        try:
            conn.request("GET", self._prefix + path, headers=headers)
            raw = conn.getresponse()
            if raw.status >= 400:
                body = raw.read()
                parsed = orjson.loads(body) if body else {}
                raise ApiError(raw.status, parsed if isinstance(parsed, dict) else {},
                               {k.lower(): v for k, v in raw.getheaders()})
            while line := raw.readline():
                if line.strip():
                    message: dict[str, Any] = orjson.loads(line)
                    yield message
                    if message.get("type") == "end":
                        return
        except OSError as exc:
            raise TransportError(f"GET {path}: {exc!r}") from exc
        finally:
            conn.close()

    # -- endpoints -------------------------------------------------------------------

    def presets(self) -> dict[str, dict[str, Any]]:
        """``GET /v1/rules/presets``: every preset with every option."""
        return cast(dict[str, dict[str, Any]], self.request("GET", "/v1/rules/presets").body["presets"])

    def solve(self, hand: Iterable[str], wild_rank: str | None,
              rules: Mapping[str, Any] | None = None,
              table: Iterable[Iterable[str]] | None = None) -> dict[str, Any]:
        """``POST /v1/solve``: the optimal arrangement and the value of each discard."""
        body: dict[str, Any] = {"hand": list(hand), "wild_rank": wild_rank}
        if rules is not None:
            body["rules"] = dict(rules)
        if table is not None:
            body["table"] = [list(m) for m in table]
        return cast(dict[str, Any], self.request("POST", "/v1/solve", body=body).body)

    def create_game(
        self,
        players: Iterable[str | Mapping[str, Any] | None],
        *,
        rules: Mapping[str, Any] | None = None,
        seed: str | int | None = None,
    ) -> CreatedGame:
        """``POST /v1/games``: a name is a seat whose token comes back (:meth:`CreatedGame.seat`),
        ``None`` leaves a seat open for a claim, and a mapping is a seat spec as the API
        takes it (``{"bot": "greedy"}``: a reference bot the service plays)."""
        body: dict[str, Any] = {"players": [
            dict(p) if isinstance(p, Mapping) else {"name": p} for p in players]}
        if rules is not None:
            body["rules"] = dict(rules)
        if seed is not None:
            body["seed"] = seed
        out = self.request("POST", "/v1/games", body=body, kind="create").body
        return CreatedGame(self, out["game_id"], out["seats"], out["state"])

    def claim(self, game_id: str, seat: int, name: str) -> Seat:
        """Claim an open seat; the returned :class:`Seat` holds its token."""
        out = self.request(
            "POST", f"/v1/games/{game_id}/seats/{seat}/claim", body={"name": name}, kind="claim"
        ).body
        return Seat(self, game_id, seat, out["token"], out["state"])

    def view(self, game_id: str, token: str | None = None, *,
             wait_version: int | None = None, wait_turn: bool = False,
             wait: float = 25.0) -> GameView:
        """The game as ``token``'s seat (or a spectator) sees it.

        With ``wait_version``: the long-poll; returns when the version differs from it,
        or after ``wait`` seconds with the unchanged view. With ``wait_turn`` (a seat
        token): returns when the seat may act or the game is over, or after ``wait``.
        """
        query: dict[str, Any] = {}
        timeout = None
        if wait_version is not None:
            query = {"wait_version": wait_version, "timeout": wait}
            timeout = wait + 10.0
        elif wait_turn:
            query = {"wait": "turn", "timeout": wait}
            timeout = wait + 10.0
        out = self.request("GET", f"/v1/games/{game_id}", token=token, query=query,
                           timeout=timeout, kind="poll" if query else "get")
        return cast(GameView, out.body)

    def events(self, game_id: str, token: str | None = None, *, after: int = 0,
               wait: float = 0.0) -> tuple[list[Event], int]:
        """Every event after ``after`` (paging through), and the ``after`` to resume with."""
        found: list[Event] = []
        while True:
            query: dict[str, Any] = {"after": after}
            if wait and not found:
                query["timeout"] = wait
            out = self.request("GET", f"/v1/games/{game_id}/events", token=token, query=query,
                               timeout=wait + 10.0 if wait else None, kind="events").body
            found.extend(out["events"])
            after = out["next_after"]
            if not out["more"]:
                return found, after

    def wait_finished(self, game_id: str, *, deadline: float | None = None) -> GameView:
        """Follow a game as a spectator (long-poll) until it is finished."""
        state = self.view(game_id)
        while state["status"] != "finished":
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"game {game_id} did not finish in time")
            state = self.view(game_id, wait_version=state["version"])
        return state
