"""``POST /v1/streams/games``: one stream following many games, as Lichess's stream of
games by ids, and ``POST /v1/streams/games/{stream_id}/add`` and ``…/remove``, which
change the games it follows while it is open.

Why: a bot playing 200 games, or a page showing a tournament's 50 tables, would otherwise
hold a connection (and one of its wait slots) per game. One stream carries every message
each game's own stream would (:mod:`.streams`: the events after its cursor, the bearer's
view, on every move the new events and view, a finished game's analysis), each with the
game's id as ``game`` (:class:`~service.wire.framing.Tagged`), in order per game. It
opens with a ``stream`` message giving its id; heartbeats are the stream's, one for all
its games; a finished game sends its ``end`` (``finished``) and leaves the set, a removed
one its ``end`` (``removed``); the stream itself ends as a game's stream does
(``max_duration``, ``shutdown``, ``unavailable``), with an ``end`` that names no game.

Why it costs what a game's stream costs, per game: each game of the set is followed by
:func:`.streams.follow` on the game's one :class:`~.feed.Feed` of this process, shared
with every other stream and long-poll of the game. A resting stream of many games is
500 resting followers on 500 feeds, each written by its feed in the feed's one loop, the
same bytes object for every stream of many games of that audience: a move costs one read
and one rendering per audience, whichever kind of stream follows the game.

Why the changes go through Redis: several push processes run behind a proxy, and an
``add`` may reach any of them. The process holding a stream listens on the stream's own
channel (:func:`control_channel`, subscribed beside its feeds' channels); the one taking
the change publishes it there with a channel of its own for the answer, and waits for
it. The publication says how many received it: none is ``404 unknown_stream``. The holder applies
the changes of a stream one at a time, so the cap of :data:`~.gamesets.MAX_GAMES` holds
however many adds race (one that would pass it is ``409 too_many_games``), and answers
each with the games the stream then follows, or with the problem an add meets (an
unknown game, a bearer of no seat in it, a cursor past its newest event), the whole add
refused then. Publishing writes no store: the push tier still never writes a key.

Who may change a stream: whoever knows its id (a random 32 characters, told only to the
client that opened it, as Lichess's stream id). Changing it grants nothing: what each
game shows is decided by the bearer that opened the stream (:func:`service.play.seat_of`,
as the game's own stream decides it), so an add sent by anyone shows the opener what its
own credential may see.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from typing import Any

import orjson

from service import play
from service.play import END_RETRY_MS, Message, end_message
from service.storage import GameRecord, Stores, UnknownGameError
from service.wire.bearer import identity
from service.wire.framing import SSE, negotiate, sse_preamble
from service.wire.problems import ApiProblem, problem_of
from service.wire.queries import URL_SAFE_ID

from .answers import Answer, common_headers, for_bearer
from .context import Push
from .feed import settle
from .gamesets import MAX_GAMES, GameSet, game_set
from .http import Request, Writer, head
from .streams import Frames, follow, frames_of

__all__ = ["CONTROL_SECONDS", "change", "control_channel", "open_stream"]

log = logging.getLogger("three_thirteen.push")

#: How long a change waits for the holder's answer (which reads the added games first).
CONTROL_SECONDS = 10.0


def control_channel(stream_id: str) -> str:
    """The name the holder of a stream listens under for its changes (its channel is the
    hub's of that name, ``ttt:{streams:<id>}:moved``, so on a Redis Cluster it has a slot
    of its own, as a game's; no game id has a colon)."""
    return f"streams:{stream_id}"


def _unknown_stream() -> ApiProblem:
    return ApiProblem(404, "unknown_stream",
                      "no open stream has this id (it ended, or never was)")


# -- the stream ----------------------------------------------------------------------------


async def open_stream(push: Push, request: Request, writer: Writer) -> bool:
    """Open the stream and push it until it ends; whether the connection may serve
    another request afterwards. Raises the problems of its checks (in the order a game's
    stream meets them: the wait slots, the format, the body, the bearer, the games)."""
    address = push.address(request)
    bearer = identity(request.headers.get("authorization"))
    push.slots.check(address, bearer)
    kind = negotiate(request.headers.get("accept"))
    wanted = game_set(request)
    who = await push.credential(request)
    started = await _admit(push.stores, who, wanted)
    with push.slots.hold(address, bearer):
        stream_id = secrets.token_urlsafe(24)
        held = _Held(push, writer, frames_of(kind, request.http11), who)
        async with push.feeds.listening(control_channel(stream_id), held.order):
            # after the subscription is confirmed: an add sent as soon as the id is read
            # reaches this process
            headers = [("Content-Type", kind), ("X-Accel-Buffering", "no"),
                       *for_bearer(who is not None), *common_headers(request, push.cors)]
            keep = request.keep_alive and request.http11
            writer.write(head(200, headers, length=None, keep_alive=keep,
                              http11=request.http11))
            if kind == SSE:
                held.write(held.frames.wire(sse_preamble(END_RETRY_MS)))
            held.write(held.frames.one(
                Message("stream", {"id": stream_id, "games": list(wanted.games)})))
            for game_id, record, seat in started:
                held.start(game_id, record, seat, wanted.after.get(game_id, 0))
            reason = await held.run()
            held.write(held.frames.one(end_message(reason)))
            if held.frames.chunked:
                writer.write(b"0\r\n\r\n")
    return keep


async def _admit(stores: Stores, who: str | None,
                 wanted: GameSet) -> list[tuple[str, GameRecord, int | None]]:
    """Each game with its record and the bearer's seat in it, as its own stream would
    check them (in a thread: one read per game): ``404 unknown_game`` naming the games
    that are not, ``401 invalid_token`` for a bearer of no seat of one, ``422
    invalid_cursor`` for a cursor past a game's newest event."""
    def read() -> list[tuple[str, GameRecord, int | None]]:
        found, missing = [], []
        for game_id in wanted.games:
            try:
                found.append((game_id, stores.games.load(game_id)))
            except UnknownGameError:
                missing.append(game_id)
        if missing:
            raise ApiProblem(404, "unknown_game", "there is no game with this id (or it "
                             f"expired): {', '.join(missing)}", games=missing)
        return [(game_id, record, _seat(record, who, game_id)) for game_id, record in found]

    started = await asyncio.to_thread(read)
    for game_id, record, _ in started:
        play.check_cursor(record, wanted.after.get(game_id, 0))
    return started


def _seat(record: GameRecord, who: str | None, game_id: str) -> int | None:
    try:
        return play.seat_of(record, who)
    except play.AuthError as exc:
        raise play.AuthError(f"this token belongs to no seat of the game {game_id}") from exc


class _Counted:
    """The connection's writer, noting when it was last written to (the stream's
    heartbeat is due when nothing of any game was, for ``STREAM_HEARTBEAT_SECONDS``)."""

    __slots__ = ("_loop", "last", "writer")

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self._loop = asyncio.get_running_loop()
        self.last = self._loop.time()

    @property
    def paused(self) -> bool:
        return self.writer.paused

    @property
    def closed(self) -> bool:
        return self.writer.closed

    def write(self, data: bytes) -> None:
        self.last = self._loop.time()
        self.writer.write(data)

    def writable(self) -> asyncio.Future[None]:
        return self.writer.writable()


class _Held:
    """One open stream of many games in this process: its games' followers (one task
    each, resting with the game's feed), the changes sent to it, and its own loop (its
    heartbeats, its end)."""

    def __init__(self, push: Push, writer: Writer, frames: Frames, who: str | None) -> None:
        self.push = push
        self.out = _Counted(writer)
        self.who = who
        #: the stream's own messages' framing; each game's is :attr:`tags`'
        self.frames = frames
        self.tags: dict[str, Frames] = {}
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + push.config.stream_max_seconds
        self.lanes: dict[str, asyncio.Task[str]] = {}
        self.orders: deque[bytes] = deque()
        self.woken: asyncio.Future[bool] = loop.create_future()

    # -- writing -------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        self.out.write(data)

    def end(self, game_id: str, reason: str) -> None:
        """The last message of ``game_id`` on this stream, framed as its follower framed
        the others (with the game's id)."""
        self.write(self._tags_of(game_id).one(end_message(reason)))
        self.tags.pop(game_id, None)

    def _tags_of(self, game_id: str) -> Frames:
        tags = self.tags.get(game_id)
        if tags is None:
            frames = self.frames
            tags = self.tags[game_id] = Frames(frames.kind, frames.chunked, game_id)
        return tags

    # -- its games -----------------------------------------------------------------------

    def start(self, game_id: str, record: GameRecord, seat: int | None, after: int) -> None:
        """Follow ``game_id`` from the event after ``after``, as ``seat``."""
        lane = asyncio.get_running_loop().create_task(follow(
            self.push, self.out, game_id, seat, after, record.state.version,
            self._tags_of(game_id), self.deadline, None))
        lane.add_done_callback(self._lane_done)
        self.lanes[game_id] = lane

    def _lane_done(self, _: asyncio.Task[str]) -> None:
        self.wake()

    async def stop(self, game_id: str) -> None:
        lane = self.lanes.pop(game_id)
        lane.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await lane

    # -- its loop ------------------------------------------------------------------------

    def wake(self) -> None:
        settle(self.woken, True)

    def order(self, data: bytes) -> None:
        """A change published on the stream's channel (applied by :meth:`run`)."""
        self.orders.append(data)
        self.wake()

    async def run(self) -> str:
        """Until the stream ends: apply its changes, see its games leave, send its
        heartbeats; the reason it ends with."""
        push = self.push
        loop = asyncio.get_running_loop()
        beat = push.config.stream_heartbeat_seconds
        heartbeat = self.frames.heartbeat
        push.on_stop.add(self.wake)
        try:
            while True:
                self.woken = loop.create_future()
                reason = self._ended_lanes()
                if reason is None and push.stopped():
                    reason = "shutdown"
                if reason is None and loop.time() >= self.deadline:
                    reason = "max_duration"
                if reason is not None:
                    return reason
                while self.orders:
                    await self._apply(self.orders.popleft())
                now = loop.time()
                paused = self.out.paused  # (its followers wait for the drain themselves)
                if now - self.out.last >= beat and not paused:
                    self.write(heartbeat)
                    now = self.out.last
                due = now + beat if paused else self.out.last + beat
                timeout = min(self.deadline, due) - now
                if not self.woken.done():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(self.woken), max(timeout, 0))
        finally:
            push.on_stop.discard(self.wake)
            for game_id in list(self.lanes):
                await self.stop(game_id)
            while self.orders:  # changes that came too late (more may come meanwhile)
                await self._answer(self.orders.popleft(), None)

    def _ended_lanes(self) -> str | None:
        """Take out the games whose following ended: a finished game sends its ``end``;
        any other end (the deadline, the shutdown, the store's failure) ends the stream."""
        for game_id, lane in list(self.lanes.items()):
            if not lane.done():
                continue
            del self.lanes[game_id]
            if lane.cancelled():
                continue
            error = lane.exception()
            if error is not None:
                log.error("push: following game %s failed", game_id, exc_info=error)
                return "unavailable"
            reason = lane.result()
            if reason != "finished":
                return reason
            self.end(game_id, "finished")
        return None

    # -- its changes ---------------------------------------------------------------------

    async def _apply(self, data: bytes) -> None:
        try:
            order = orjson.loads(data)
            wanted = GameSet(tuple(order["games"]), dict(order.get("after", {})))
            if order["op"] == "remove":
                for game_id in wanted.games:
                    if game_id in self.lanes:
                        await self.stop(game_id)
                        self.end(game_id, "removed")
            else:
                await self._add(wanted)
        except Exception as exc:
            problem = problem_of(exc, self.push.config.retry_after_seconds)
            if problem is None:
                log.error("push: a change of a stream failed", exc_info=exc)
                problem = problem_of(ApiProblem(500, "internal_error",
                                                "an unexpected error occurred"), 0)
            assert problem is not None
            await self._answer(data, {"status": problem.status, "code": problem.code,
                                      "detail": problem.detail, "extra": problem.extra,
                                      "headers": problem.headers})
            return
        await self._answer(data, {"status": 200, "games": list(self.lanes)})

    async def _add(self, wanted: GameSet) -> None:
        new = [g for g in wanted.games if g not in self.lanes]
        if len(self.lanes) + len(new) > MAX_GAMES:
            raise ApiProblem(409, "too_many_games",
                             f"a stream follows at most {MAX_GAMES} games: it follows "
                             f"{len(self.lanes)}, and this adds {len(new)} more",
                             limit=MAX_GAMES, following=len(self.lanes), adding=len(new))
        added = GameSet(tuple(new), {g: a for g, a in wanted.after.items() if g in new})
        for game_id, record, seat in await _admit(self.push.stores, self.who, added):
            if game_id not in self.lanes:  # (removed while it was read: start it anyway)
                self.start(game_id, record, seat, added.after.get(game_id, 0))

    async def _answer(self, data: bytes, answer: dict[str, Any] | None) -> None:
        """Publish ``answer`` (``None``: the stream has ended) on the change's channel."""
        try:
            reply = orjson.loads(data)["reply"]
            await self.push.feeds.publish(reply, orjson.dumps(answer))
        except Exception as exc:  # the changer then answers after its wait
            log.warning("push: answering a change of a stream failed (%s)", exc)


# -- its changes, taken by any push process ------------------------------------------------


async def change(push: Push, request: Request, stream_id: str, op: str) -> Answer:
    """``add`` or ``remove`` games of the stream ``stream_id``, wherever it is held: the
    games it then follows, or the holder's problem (see the module)."""
    if not URL_SAFE_ID.fullmatch(stream_id):
        raise _unknown_stream()
    wanted = game_set(request)
    reply = f"streams-reply:{secrets.token_urlsafe(16)}"
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[bytes] = loop.create_future()

    def take(data: bytes) -> None:
        if not answered.done():
            answered.set_result(data)

    order = orjson.dumps({"op": op, "games": list(wanted.games), "after": wanted.after,
                          "reply": reply})
    async with push.feeds.listening(reply, take):
        if await push.feeds.publish(control_channel(stream_id), order) == 0:
            raise _unknown_stream()
        try:
            data = await asyncio.wait_for(answered, CONTROL_SECONDS)
        except TimeoutError:
            raise ApiProblem(503, "stream_unresponsive", "the process holding this stream "
                             "did not answer; retry later", headers={
                                 "Retry-After": str(push.config.retry_after_seconds)}
                             ) from None
    answer = orjson.loads(data)
    if answer is None:
        raise _unknown_stream()
    if answer["status"] != 200:
        raise ApiProblem(answer["status"], answer["code"], answer["detail"],
                         headers=answer["headers"], **answer["extra"])
    body = orjson.dumps({"stream": stream_id, "games": answer["games"]})
    return Answer(200, [("Content-Type", "application/json"),
                        ("Cache-Control", "no-store")], body)
