"""The push process: an asyncio server on uvloop that holds the waiting requests.

Routes (everything else is a 404 ``not_found``, another method a 405: the proxy sends
this process only the waiting requests, and Flask keeps every other):

* ``GET /v1/games/{id}``: the long-polls (:mod:`.waits`); the same URL without a wait is
  answered too, as Flask answers it, so a proxy may route on the query alone;
* ``GET /v1/games/{id}/stream``: the game's stream (:mod:`.streams`);
* ``POST /v1/streams/games``: a stream of many games, and ``POST
  /v1/streams/games/{stream_id}/add`` and ``…/remove``, its changes (:mod:`.multiplex`),
  which only the push tier serves;
* ``GET /v1/games/{id}/events``: the event log, waiting with ``timeout`` (:mod:`.events`);
* ``GET /v1/me/stream``: an account's stream (:mod:`.accounts`);
* ``GET /v1/seeks/{id}``: a seek, waiting with ``timeout`` for its match (:mod:`.seeks`);
* ``GET /healthz``: this process's own probe: ``{"status": "ok", "waiting": n,
  "unsent_bytes": b, "paused": p}``, the requests holding a feed, the bytes written that
  the connections' transports still hold, and the connections whose client has fallen
  behind (their writers paused: :data:`.http.HIGH_WATER_BYTES`).

Stopping (SIGTERM or SIGINT): the listening socket closes, open streams end at once with
``end`` ``shutdown`` and a retry hint, long-polls run to their answer (each within the
long-poll cap), idle connections close; then the process exits, after
:data:`GRACE_SECONDS` at the most, as gunicorn's ``graceful_timeout``.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal

import orjson
import uvloop

from service.config import Config
from service.storage import redis_stores
from service.wire.problems import ApiProblem

from .accounts import account_stream
from .answers import Answer, internal_error, preflight, problem_answer, send
from .context import Push
from .events import events
from .http import Connection, Request, Writer
from .multiplex import change, open_stream
from .seeks import seek
from .streams import stream
from .waits import game

__all__ = ["GRACE_SECONDS", "PushServer", "main", "serve"]

log = logging.getLogger("three_thirteen.push")

#: The longest a stopping process waits for its running long-polls (gunicorn's
#: ``graceful_timeout`` in deploy/gunicorn.conf.py).
GRACE_SECONDS = 35.0

_GAME = re.compile(r"/v1/games/([^/]+)")
_STREAM = re.compile(r"/v1/games/([^/]+)/stream")
_MANY = "/v1/streams/games"
_CHANGE = re.compile(r"/v1/streams/games/([^/]+)/(add|remove)")
_EVENTS = re.compile(r"/v1/games/([^/]+)/events")
_SEEK = re.compile(r"/v1/seeks/([^/]+)")


class PushServer:
    """One process's server: its connections, its routes, its shutdown."""

    def __init__(self, push: Push) -> None:
        self.push = push
        self.connections: set[Connection] = set()
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host``:``port`` (0: any free port); the port it listens on."""
        await self.push.feeds.start()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: Connection(self.handle, self.connections.add, self.connections.discard,
                               self.push.config.max_body_bytes),
            host, port, backlog=4096, reuse_address=True)
        sockets = self._server.sockets
        return int(sockets[0].getsockname()[1]) if sockets else port

    async def stop(self) -> None:
        """Stop as the module says."""
        push = self.push
        if self._server is not None:
            self._server.close()
        push.stop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GRACE_SECONDS
        while loop.time() < deadline:
            for connection in [c for c in self.connections if not c.busy]:
                connection.close()
            if not self.connections:
                break
            await asyncio.sleep(0.05)
        for connection in list(self.connections):
            connection.close()
        await push.feeds.stop()
        push.stores.release()

    def health(self) -> dict[str, object]:
        """What ``/healthz`` says (see the module)."""
        connections = self.connections
        return {"status": "ok", "waiting": self.push.feeds.watching(),
                "unsent_bytes": sum(c.unsent for c in connections),
                "paused": sum(c.paused for c in connections)}

    async def handle(self, request: Request, writer: Writer) -> bool:
        """Answer one request; whether the connection may serve another."""
        push = self.push
        try:
            if (answer_now := preflight(request, push.cors)) is not None:
                return send(writer, request, answer_now, push.cors)
            path = request.path
            many = path == _MANY or _CHANGE.fullmatch(path) is not None
            allowed = "POST" if many else "GET"
            if request.method != allowed:
                raise ApiProblem(405, "method_not_allowed",
                                 "The method is not allowed for the requested URL.",
                                 headers={"Allow": allowed})
            if path == _MANY:
                return await open_stream(push, request, writer)
            if (found := _CHANGE.fullmatch(path)) is not None:
                answer = await change(push, request, found.group(1), found.group(2))
            elif (found := _GAME.fullmatch(path)) is not None:
                answer = await game(push, request, found.group(1))
            elif (found := _STREAM.fullmatch(path)) is not None:
                return await stream(push, request, found.group(1), writer)
            elif (found := _EVENTS.fullmatch(path)) is not None:
                answer = await events(push, request, found.group(1))
            elif path == "/v1/me/stream":
                return await account_stream(push, request, writer)
            elif (found := _SEEK.fullmatch(path)) is not None:
                answer = await seek(push, request, found.group(1))
            elif path == "/healthz":
                body = orjson.dumps(self.health())
                answer = Answer(200, [("Content-Type", "application/json"),
                                      ("Cache-Control", "no-store")], body)
            else:
                raise ApiProblem(404, "not_found", "The requested URL was not found on the "
                                 "server. If you entered the URL manually please check your "
                                 "spelling and try again.")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            problem = problem_answer(exc, request, push.config.retry_after_seconds)
            if problem is None:
                log.error("unhandled error", exc_info=exc)
                problem = internal_error(request)
            answer = problem
        return send(writer, request, answer, push.cors)


async def serve(config: Config, host: str, port: int) -> None:
    """Run a push process until SIGTERM or SIGINT."""
    server = PushServer(Push.of(config, redis_stores(config)))
    bound = await server.start(host, port)
    log.info("push tier listening on %s:%d", host, bound)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()


def main(host: str, port: int, config: Config | None = None) -> None:
    uvloop.run(serve(config or Config.from_env(), host, port))
