"""The push tier under load while its processes and the web workers are SIGKILLed and
restarted (real processes: one Redis, a gunicorn serving the moves, two push processes).

Players make moves through the web workers, pacing themselves, while hundreds of clients
wait on their games at the two push processes as a page or a bot does: streams (SSE and
NDJSON) that, whenever their connection drops or their stream ends, reconnect from the
last event they received (``Last-Event-ID``, or ``?after=``), and long-polls
(``wait_version``) that ask again, with the newest version they know, after every
answer and after a cut connection. Meanwhile a web worker is killed (its master replaces
it), then the whole gunicorn, master and workers (the test starts a new one on the same
port), then each push process in turn (started again on the same port).

What must hold, checked against the games in Redis at the end: every move a player saw
accepted is in its game's log; every long-poll was answered with a version newer than it
asked for, or with the same one once its whole timeout had passed, or had its
connection cut, and asking again got it to the game's last version; every stream client
received, over all its connections, its game's event log as its seat may see it, each
event once and in order (nothing lost, nothing sent twice to a resumed stream), and
never a view older than one it had.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

from service.storage.redis.games import game_keys
from tests.conftest import PATIENCE, free_port, wait_until
from tests.push.conftest import push_process

from .conftest import Gunicorn, RedisProcess
from .driver import Player, check_stored_game, join_all, play_all
from .followers import Follower, close_all, follow, logged_events, newest_seq, until

GAMES = 3
FOLLOWERS_PER_GAME = 40
POLLERS_PER_GAME = 20
#: Seconds between a player's moves: the clients, not the players, are the load.
PACE = 0.03
#: Moves each game is to make between one fault and the next (so each fault lands while
#: every client is busy following, and the service is seen to carry on after it).
MOVES_BETWEEN = 8
#: The long-polls' timeout: short, so that the ones that ran out are seen too. One answered
#: with the version it asked for must have waited; half its timeout is the bound, since the
#: push process times a wait by its loop's clock (libuv's, read once per turn of the loop),
#: which a busy turn leaves behind the time the request came in.
POLL_TIMEOUT = 2.0
#: The streams' lifetime: short, so that streams also end by themselves and resume
#: after a clean ``end``, not only after a cut.
STREAM_SECONDS = 5
#: A socket read bound far past anything the service should take (heartbeats come every
#: second): a read that times out is a hung request, reported as a failure.
READ_TIMEOUT = 60.0

#: What both push processes run with (and the web workers too, as far as they read it).
PUSH_SETTINGS = {
    "LONG_POLL_MAX_SECONDS": "30",
    "STREAM_MAX_SECONDS": str(STREAM_SECONDS),
    "STREAM_HEARTBEAT_SECONDS": "1",
    "MAX_WAITS_PER_ADDRESS": "off",
    "MAX_WAITS_PER_TOKEN": "off",
    "RATE_LIMIT": "off",
    "RATE_LIMIT_PER_ADDRESS": "off",
    "CREATION_LIMIT_PER_ADDRESS": "off",
    "LOG_LEVEL": "error",
}


def lasting_port() -> int:
    """A free port below the ephemeral range, for a process to be killed and started again
    on it: while it is down, its clients keep connecting to it, and a port of the
    ephemeral range (:func:`~tests.conftest.free_port`'s) may meanwhile be given to one of
    their sockets as its own end (even to a connection to itself: TCP's simultaneous
    open), which the restarted process then could not listen on."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return free_port()
    for _ in range(200):
        port = random.randrange(max(1024, low - 12_000), low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    return free_port()


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie has: its sockets are closed)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


class Tier:
    """The processes under test, each killed with SIGKILL and started again in place."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.env = {**os.environ, "REDIS_URL": redis_url, **PUSH_SETTINGS}
        self.web: Gunicorn | None = None
        self.push_ports = [lasting_port(), lasting_port()]
        self.push: list[subprocess.Popen[bytes] | None] = [None, None]

    @property
    def push_bases(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.push_ports]

    def start_web(self, port: int | None = None) -> None:
        self.web = Gunicorn(self.redis_url, port=port or lasting_port(), **PUSH_SETTINGS)

    def kill_web(self) -> None:
        """SIGKILL the gunicorn master and all its workers at once."""
        assert self.web is not None
        pids = [self.web.proc.pid, *self.web.workers()]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):  # a worker that exited meanwhile
                os.kill(pid, signal.SIGKILL)
        self.web.proc.wait(PATIENCE)
        wait_until(lambda: all(gone(pid) for pid in pids), PATIENCE, "the killed workers gone")

    def start_push(self, i: int) -> None:
        self.push[i] = push_process(self.env, self.push_ports[i])
        base = self.push_bases[i]
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE,
                   f"push process {i}")

    def kill_push(self, i: int) -> None:
        proc = self.push[i]
        assert proc is not None
        proc.kill()
        proc.wait(PATIENCE)

    def close(self) -> None:
        for proc in self.push:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.push:
            if proc is not None:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(PATIENCE)
        if self.web is not None:
            self.web.close()


@pytest.fixture
def tier(aof_redis: RedisProcess) -> Iterator[Tier]:
    processes = Tier(aof_redis.url)
    try:
        processes.start_web()
        processes.start_push(0)
        processes.start_push(1)
        yield processes
    finally:
        processes.close()


@dataclass
class Ask:
    """One long-poll: where it went, the version it knew, and what came of it."""

    base: str
    asked: int
    seconds: float
    status: int | None = None  # None: the connection was cut (or refused)
    version: int | None = None
    etag: str | None = None
    error: str | None = None


@dataclass
class Poller:
    """A client long-polling one game (``wait_version``, with its seat's token or none)
    over one keep-alive connection, asking again with the newest version it knows after
    every answer; after a cut connection it opens a new one (to the next of ``bases``: a
    proxy's round robin, or the same process again) and asks the same again."""

    bases: tuple[str, ...]
    game_id: str
    token: str | None
    version: int = 0
    asks: list[Ask] = field(default_factory=list)
    #: the game's last version, once the players have stopped: the poller stops there
    last: int | None = None
    error: BaseException | None = None

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        return thread

    def _run(self) -> None:
        try:
            self._poll()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _poll(self) -> None:
        connections = 0
        conn: http.client.HTTPConnection | None = None
        headers = {} if self.token is None else {"Authorization": f"Bearer {self.token}"}
        while self.last is None or self.version < self.last:
            if conn is None:
                base = self.bases[connections % len(self.bases)]
                url = urlsplit(base)
                conn = http.client.HTTPConnection(url.hostname, url.port, timeout=READ_TIMEOUT)
                connections += 1
            ask = Ask(base, self.version, 0.0)
            start = time.monotonic()
            try:
                conn.request("GET", f"/v1/games/{self.game_id}?wait_version={self.version}"
                             f"&timeout={POLL_TIMEOUT}", headers=headers)
                response = conn.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as exc:  # cut, refused, or hung
                ask.seconds = time.monotonic() - start
                ask.error = repr(exc)
                self.asks.append(ask)
                conn.close()
                conn = None
                time.sleep(0.05)
                continue
            ask.seconds = time.monotonic() - start
            ask.status, ask.etag = response.status, response.getheader("ETag")
            self.asks.append(ask)
            if response.status != 200:
                conn.close()
                conn = None
                time.sleep(0.05)
                continue
            ask.version = json.loads(body)["version"]
            assert ask.version is not None
            self.version = max(self.version, ask.version)
        if conn is not None:
            conn.close()


def hung(error: str) -> bool:
    """Whether a request's error is its read timing out (:data:`READ_TIMEOUT`): a hung
    request, not a cut one."""
    return error.startswith(("TimeoutError", "timeout"))


def check_poller(poller: Poller) -> None:
    """Every answer was a newer version, or the same one after the whole timeout; none
    hung; every cut was followed by asks that reached the game's last version."""
    for ask in poller.asks:
        if ask.error is not None:
            assert not hung(ask.error), f"a long-poll hung: {ask}"
            continue
        assert ask.status == 200, (poller.game_id, ask)
        assert ask.version is not None and ask.etag == f'"{ask.version}"', ask
        assert ask.version >= ask.asked, f"an older version than the one asked for: {ask}"
        if ask.version == ask.asked:  # (its timeout ran out: not woken for nothing)
            assert ask.seconds >= POLL_TIMEOUT / 2, f"answered early with nothing new: {ask}"
    answered = [ask.version for ask in poller.asks if ask.version is not None]
    assert answered == sorted(answered), f"a long-poll went back a version: {answered}"
    assert poller.version == poller.last


def followers_of(player: Player, bases: list[str]) -> list[Follower]:
    """The game's stream clients, mixed: a spectator and each seat in turn; SSE resuming
    with ``Last-Event-ID``, NDJSON with ``?after=`` or ``Last-Event-ID``; following one
    push process or the other, or both in turn (a proxy's round robin)."""
    followers = []
    for i in range(FOLLOWERS_PER_GAME):
        seat = (None, 0, 1)[i % 3]
        where = (i // 4) % 3
        followers.append(Follower(
            bases[where % 2], player.game_id,
            None if seat is None else player.tokens[seat],
            max_connections=10_000, read_timeout=READ_TIMEOUT,
            sse=i % 2 == 0, resume_by_query=i % 4 == 1,
            bases=tuple(bases) if where == 2 else ()))
    return followers


def pollers_of(player: Player, bases: list[str]) -> list[Poller]:
    """The game's long-polls: a spectator or a seat; on one process or both in turn."""
    pollers = []
    for i in range(POLLERS_PER_GAME):
        seat = (None, 0, 1)[i % 3]
        where = (i // 3) % 3
        pollers.append(Poller(tuple(bases) if where == 2 else (bases[where],),
                              player.game_id, None if seat is None else player.tokens[seat]))
    return pollers


def seat_of(player: Player, follower: Follower) -> int | None:
    return None if follower.token is None else player.tokens.index(follower.token)


def play_on(players: list[Player], threads: list[threading.Thread], what: str) -> None:
    """Wait until every game still played has made :data:`MOVES_BETWEEN` more moves."""
    moves = MOVES_BETWEEN
    counts = [len(p.actions) for p in players]
    wait_until(lambda: all(len(p.actions) >= n + moves or not t.is_alive()
                           for p, t, n in zip(players, threads, counts, strict=True)),
               PATIENCE, what)
    errors = [p.error for p in players if p.error is not None]
    assert not errors, errors


def test_waiters_at_two_push_processes_get_every_move_once_through_sigkilled_processes(
    tier: Tier, aof_redis: RedisProcess,
) -> None:
    assert tier.web is not None
    stop = threading.Event()
    players = [Player(tier.web.base, f"push-kill-{i}", stop, max_actions=10_000, pace=PACE)
               for i in range(GAMES)]
    player_threads = play_all(players)
    wait_until(lambda: all(p.actions or p.error for p in players), PATIENCE, "the games begun")
    bases = tier.push_bases
    followers = [f for p in players for f in followers_of(p, bases)]
    pollers = [q for p in players for q in pollers_of(p, bases)]
    poller_threads = [q.start() for q in pollers]
    follower_threads = follow(followers)
    play_on(players, player_threads, "moves with every client following")

    # a web worker killed (its master replaces it), then the whole gunicorn
    os.kill(tier.web.workers()[0], signal.SIGKILL)
    play_on(players, player_threads, "moves after a web worker was killed")
    port = tier.web.port
    tier.kill_web()
    tier.start_web(port)
    play_on(players, player_threads, "moves after gunicorn was killed and started again")

    # each push process in turn killed under its clients, and started again on its port
    # (the streams following both in turn resume on the other one, then come back)
    for i in (0, 1):
        cut_before = sum(len(f.drops) for f in followers)
        tier.kill_push(i)
        wait_until(lambda n=cut_before: sum(len(f.drops) for f in followers) > n, PATIENCE,
                   "the killed push process's streams cut")
        play_on(players, player_threads, "moves while a push process is down")
        tier.start_push(i)
        play_on(players, player_threads, "moves after the push process was started again")
    # and play on until a stream has lived its STREAM_SECONDS and resumed after its end
    # (however quickly the kills came, which may have cut every stream before that)
    wait_until(lambda: any(f.ends for f in followers), PATIENCE, "a stream ending by itself")
    play_on(players, player_threads, "moves after a stream ended by itself")

    stop.set()
    join_all(player_threads, players, PATIENCE)
    client = aof_redis.client()
    for p in players:
        check_stored_game(client, p)  # every accepted move is in the log, and nothing else
    newest = {p.game_id: newest_seq(client, p.game_id) for p in players}
    last = {p.game_id: int(client.hget(game_keys(p.game_id)[0], "v")) for p in players}
    for q in pollers:
        q.last = last[q.game_id]
    until(followers, lambda f: f.last_seq == newest[f.game_id]
          and f.last_version == last[f.game_id], PATIENCE, "at the game's last event and view")
    close_all(followers, follower_threads)
    for t in poller_threads:
        t.join(PATIENCE)
    assert not any(t.is_alive() for t in poller_threads), "a long-poll client hung"
    errors = [q.error for q in pollers if q.error is not None]
    assert not errors, errors[:3]

    for q in pollers:
        check_poller(q)
    by_game = {p.game_id: p for p in players}
    logs = {(p.game_id, seat): logged_events(client, p.game_id, seat)
            for p in players for seat in (None, 0, 1)}
    for i, f in enumerate(followers):
        log = logs[f.game_id, seat_of(by_game[f.game_id], f)]
        seqs = [e["seq"] for e in f.events]
        assert seqs == [e["seq"] for e in log], (
            f"follower {i} ({'SSE' if f.sse else 'NDJSON'}): lost or repeated events "
            f"(drops {f.drops[:3]}, ends {f.ends[:3]}; "
            f"repeated {[s for s, n in Counter(seqs).items() if n > 1][:5]})")
        assert f.events == log, f"follower {i}: events differ from the log"
        versions = [v for _, v in f.versions]
        assert versions == sorted(versions), f"follower {i}: a view older than one it had"
        assert set(f.statuses) == {200}, f"follower {i}: {Counter(f.statuses)}"
        assert not [d for d in f.drops if hung(d[1])], f"follower {i}: a stream hung"
        assert {reason for _, reason in f.ends} <= {"max_duration", "finished"}, f.ends

    # the faults did land under the clients (else this test would show nothing)
    cut_polls = [a for q in pollers for a in q.asks if a.error is not None]
    cut_streams = [f for f in followers if f.drops]
    for base in bases:
        assert [a for a in cut_polls if a.base == base], f"no long-poll at {base} was cut"
    assert cut_streams, "no stream was cut by the push processes' kills"
    assert any(f.ends for f in followers), "no stream ended by itself and resumed"
    assert [r for p in players for r in p.replies if r.status == 0], \
        "no move met the killed web workers"
    print(f"\n{len(followers)} streams ({len(cut_streams)} cut, "
          f"{sum(len(f.statuses) for f in followers)} connections), {len(pollers)} long-poll "
          f"clients ({sum(len(q.asks) for q in pollers)} asks, {len(cut_polls)} cut); "
          f"{sum(len(p.actions) for p in players)} moves; every stream has its log once")
