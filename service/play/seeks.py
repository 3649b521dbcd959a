"""Matchmaking: seekers of the same table (resolved rules, decks, player count and
``rated``) with agreeing turn clocks meet in one game.

A seek's seat token is a random secret made when the seek is opened and shown only in
that answer; only its hash is stored, as for every seat. The seek is read and cancelled
with it (``Authorization: Bearer``), so its id (``<table digest>.<players>.<random>``)
is not a secret. An account seeks with its key instead: the seat is then the account's,
named by its handle, and the account's streams hold the seek (:mod:`.seek_holds`).

Each seek asks for a turn clock (``turn_seconds``, :data:`SEEK_TURN_SECONDS` unless it
says; at most :data:`~.challenges.MAX_TURN_SECONDS`) or for none (``null``). Seekers
whose clocks agree meet: the game has the clock they asked for, and no clock only when
every one of them asked for none (:mod:`service.storage.seeks`). A rated seek is an
account's and has a clock, and meets rated seeks only (``rated`` is part of the table):
so a rated game's every seat is an account and it has a clock, as ratings require.

Matching is one atomic step of the seek board; the game is then created by the request
that matched, which first plans a move worker's visit of the match
(:class:`~service.storage.SeekVisit`): if the request dies before the game exists, the
worker creates it. A seek reads ``matched`` once its game exists, and no read writes. A seek held by a
connection ends when that connection closes, and is never matched after the close
(:mod:`.seek_holds`). A game from matchmaking is never seeded by anyone (its seed is a
fresh secret) and is listed in the lobby's ``in_progress`` games, to watch.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from service.core.instants import instant
from service.engine.game import check_ends, check_players, check_rated
from service.engine.serialize import rules_from_json
from service.storage import (
    Account,
    GameExistsError,
    Hold,
    Lease,
    Matching,
    SeekEntry,
    SeekRecord,
    SeekVisit,
    Stores,
    member_of,
)

from .admission import agreed_in_seek
from .challenges import MAX_TURN_SECONDS
from .credentials import ACCOUNT_PREFIX, account_credential, hash_token
from .errors import (
    AuthError,
    InvalidSeekError,
    PlayError,
    SeekMatchedError,
    UnknownSeekError,
)
from .games import create_game, game_exists
from .seek_holds import (
    CLOSED,
    DEADLINE,
    HOLD_LEASE_SECONDS,
    Connection,
    StreamHolds,
    look_and_hold,
    quiet_wait,
)

__all__ = ["MADE_LOOK_SECONDS", "SEEK_TURN_SECONDS", "START_GRACE_SECONDS", "Seek",
           "cancel_seek", "look_at_seek", "open_seek", "seek_pool", "seek_status",
           "stream_holds", "visit_seek", "wait_for_match"]

#: A seek's turn clock unless it names one (a challenge's default too).
SEEK_TURN_SECONDS = 60
#: How soon a move worker creates a match's game when its matching request died.
START_GRACE_SECONDS = 5.0
#: How soon a wait first looks again for a matched seek's game, and at most between two
#: looks: the match wakes its waiters before its request made the game (a few ms), and a
#: matcher that died leaves it to a worker (seconds), so the looks back off.
MADE_LOOK_SECONDS = (0.01, 1.0)

_SEEK_ID = re.compile(r"([0-9a-f]{16})\.([2-8])\.([A-Za-z0-9_-]{32})")


@dataclass(frozen=True, slots=True)
class Seek:
    """A seek as its seeker sees it (``token``: its seat token, none for an account's)."""

    seek_id: str
    status: str  # "waiting" | "matched"
    name: str
    players: int
    expires: float | None
    turn_seconds: int | None
    rated: bool
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None

    def to_json(self) -> dict[str, object]:
        """The response body of the seek endpoints."""
        expires = instant(self.expires, timespec="seconds")
        return {"seek_id": self.seek_id, "status": self.status, "name": self.name,
                "players": self.players, "turn_seconds": self.turn_seconds,
                "rated": self.rated, "expires": expires, "game_id": self.game_id,
                "seat": self.seat, "token": self.token}


def _pool(rules_spec: Mapping[str, Any] | str | None, players: int, rated: bool,
          turn_seconds: int | None) -> tuple[str, bytes]:
    """The pool's name and the table's rules (as JSON): seekers whose specs resolve to the
    same game meet (``{"preset": "classic"}`` and ``"classic"`` spelled out, ``decks:
    "auto"`` and the number it comes to for this many players), rated with rated only."""
    spec = {"preset": rules_spec} if isinstance(rules_spec, str) else rules_spec
    rules = rules_from_json(spec)
    check_players(rules, players)  # playable by this many (a shoe big enough)? Fail now
    check_ends(rules, turn_seconds)  # and a clock only with a turn limit
    if rated:  # a rated seek is an account's (checked before): its rules and clock
        check_rated(rules, turn_seconds, [None] * players, ["seeker"] * players)
    table = {**rules.to_dict(), "decks": rules.decks_for(players)}
    blob = orjson.dumps(table, option=orjson.OPT_SORT_KEYS)
    digest = hashlib.sha256(orjson.dumps({"table": table, "rated": rated},
                                         option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"{digest[:16]}.{players}", blob


def _parse(seek_id: str) -> tuple[str, str]:
    """The pool and storage key of a seek id (:class:`UnknownSeekError` if malformed)."""
    found = _SEEK_ID.fullmatch(seek_id)
    if found is None:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    return f"seek.{found[1]}.{found[2]}", hashlib.sha256(seek_id.encode()).hexdigest()[:32]


def seek_pool(seek_id: str) -> str:
    """The pool of a seek id: the topic of the channel its matches are published on
    (:meth:`~service.storage.SeekBoard.watch`; :class:`UnknownSeekError` if malformed)."""
    return _parse(seek_id)[0]


def open_seek(stores: Stores, rules_spec: Mapping[str, Any] | str | None,
              players: int, name: str, ttl_seconds: float,
              account: Account | None = None, *, turn_seconds: int | None = SEEK_TURN_SECONDS,
              rated: bool = False, holder: str | None = None) -> Seek:
    """Add a seeker (an ``account``, named by its handle and seated by its key, or else a
    fresh seat token, shown once: in this answer), held by ``holder`` (the request's own
    long-poll, :func:`wait_for_match`) if given; if it completes a game, create that game
    now. The seek is answered from what the add returned (no read of what was just
    written)."""
    if turn_seconds is not None and not 1 <= turn_seconds <= MAX_TURN_SECONDS:
        raise InvalidSeekError(f"turn_seconds is from 1 to {MAX_TURN_SECONDS}")
    if rated and account is None:
        raise AuthError("a rated seek is an account's: send its key as Authorization: "
                        "Bearer <key>")
    if rated and turn_seconds is None:
        raise InvalidSeekError("a rated game has a turn clock: give turn_seconds")
    pool_name, table_json = _pool(rules_spec, players, rated, turn_seconds)
    seek_id = f"{pool_name}.{secrets.token_urlsafe(24)}"
    pool, key = _parse(seek_id)
    now = time.time()
    game_id = secrets.token_urlsafe(12)
    if account is not None:
        token, name, credential = None, account.handle, account_credential(account.handle)
    else:
        token = secrets.token_urlsafe(32)
        credential = hash_token(token)
    seek = SeekRecord(name, credential, turn_seconds, rated)
    expires = round((now + ttl_seconds) * 1000) / 1000  # as stored (Unix ms)
    hold = None if holder is None else Hold(holder, now + HOLD_LEASE_SECONDS)
    matching = stores.seeks.add(pool, key, seek, expires, players, game_id, table_json, now,
                                hold)
    _follow_up(stores, pool, game_id, matching)
    if account is not None and key not in matching.matched:
        stores.seeks.index(account.handle, seek_id, expires)
        stores.accounts.wake(account.handle)  # its streams hold the seek from now on
    if key not in matching.matched:
        return Seek(seek_id, "waiting", name, players, expires, turn_seconds, rated,
                    token=token)
    return Seek(seek_id, "matched", name, players, None, turn_seconds, rated, game_id,
                matching.matched.index(key), token)


def _follow_up(stores: Stores, pool: str, game_id: str, matching: Matching) -> None:
    """After a step of the board: create the game it matched (its worker's visit planned
    first: if this process dies before the game exists, a move worker creates it), and
    wake the streams that hold seeks of a group waiting for them to look."""
    if matching.matched:
        stores.schedule.plan(member_of(SeekVisit(pool, game_id)),
                             time.time() + START_GRACE_SECONDS)
        _create(stores, pool, game_id)
    for handle in sorted(set(matching.wake)):
        stores.accounts.wake(handle)


def _create(stores: Stores, pool: str, game_id: str) -> None:
    """Create a matched game from its record, unless someone already did."""
    record = stores.seeks.match_record(pool, game_id)
    if record is None:
        raise UnknownSeekError("the match of this seek is gone")
    accounts = [stores.accounts.load(name) if th.startswith(ACCOUNT_PREFIX) else None
                for name, th in zip(record.names, record.credentials, strict=True)]
    with contextlib.suppress(GameExistsError):  # a racing seeker created it first
        create_game(stores, record.rules, record.names, None,
                    token_hashes=record.credentials, game_id=game_id, accounts=accounts,
                    turn_seconds=record.turn_seconds, rated=record.rated,
                    agreed=agreed_in_seek(record.credentials))


def visit_seek(stores: Stores, lease: Lease, pool: str, game_id: str) -> None:
    """A move worker's visit of a match: create its game if the request that matched did
    not (it died); then release it."""
    if not game_exists(stores, game_id):
        with contextlib.suppress(UnknownSeekError):  # its record expired: nothing to make
            _create(stores, pool, game_id)
    stores.schedule.release(lease, None)


def _owned(record: SeekRecord, who: str | None) -> None:
    """Refuse a bearer that is not the seek's own (:class:`AuthError`, a 401)."""
    if who is None:
        raise AuthError("a seek is read with its token (or its account's key): send "
                        "Authorization: Bearer <token>")
    if not hmac.compare_digest(record.credential, who):
        raise AuthError("this token is not this seek's")


def _read(stores: Stores, seek_id: str, who: str | None,
          token: str | None) -> tuple[Seek, SeekEntry]:
    """The seek now, for its seeker, and as stored; a matched seek's game exists once
    this returns."""
    pool, key = _parse(seek_id)
    entry = stores.seeks.get(pool, key)
    record, expires = entry.record, entry.expires
    players = int(pool.rsplit(".", 1)[1])
    if record is None or (expires is not None and expires <= time.time()):
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    _owned(record, who)
    clock, rated = record.turn_seconds, record.rated
    if record.game is not None and game_exists(stores, record.game):
        return Seek(seek_id, "matched", record.name, players, None, clock, rated,
                    record.game, record.seat, token), entry
    # not matched, or matched by a request that died before it made the game: a move
    # worker makes it within START_GRACE_SECONDS (a read never writes)
    return Seek(seek_id, "waiting", record.name, players, expires, clock, rated,
                token=token), entry


def seek_status(stores: Stores, seek_id: str, who: str | None,
                token: str | None = None) -> Seek:
    """The seek now, for its seeker (the bearer of the credential ``who``; its seat
    ``token``, when it has one, is repeated in the answer): ``matched`` once its game
    exists. Reads only."""
    return _read(stores, seek_id, who, token)[0]


def wait_for_match(stores: Stores, seek_id: str, who: str | None, timeout: float,
                   token: str | None = None, connection: Connection | None = None,
                   holder: str | None = None) -> Seek:
    """The seek once matched, or as it is after ``timeout`` seconds (parked on the board's
    watch: the worker's hub on Redis). With ``holder`` (the hold its opening request
    made), held meanwhile by this wait: if ``connection`` closes, the seek is canceled
    (:class:`UnknownSeekError`: nobody is left to answer). Without, it only reads (a
    ``GET``: reads never write)."""
    if holder is None:
        return _read_until_matched(stores, seek_id, who, timeout, token)
    pool, key = _parse(seek_id)
    deadline = time.monotonic() + timeout
    renewed = time.monotonic()
    look = MADE_LOOK_SECONDS[0]
    with stores.seeks.watch(pool) as watch:  # subscribe first: a match after the read wakes us
        while True:
            seek, entry = _read(stores, seek_id, who, token)
            if seek.status != "waiting":
                return seek
            if entry.record is not None and entry.record.game is not None:
                # matched; its game is a worker's to make
                if time.monotonic() >= deadline:
                    return seek
                time.sleep(look)
                look = min(2 * look, MADE_LOOK_SECONDS[1])
                continue
            looked = look_and_hold(stores, pool, key, entry, holder, connection, renewed,
                                   lambda p, g, m: _follow_up(stores, p, g, m))
            if looked is None:  # canceled by the look
                raise UnknownSeekError("this seek was canceled: its connection closed")
            renewed = looked
            why = quiet_wait(watch, connection, deadline, renewed)
            if why == CLOSED:
                stores.seeks.cancel(pool, key)
                raise UnknownSeekError("this seek was canceled: its connection closed")
            if why == DEADLINE:
                break
    game_id = secrets.token_urlsafe(12)  # the hold ends; the seek waits on, held by nothing
    _follow_up(stores, pool, game_id, stores.seeks.release(pool, key, holder, game_id,
                                                        time.time()))
    return seek_status(stores, seek_id, who, token)


def look_at_seek(stores: Stores, seek_id: str, who: str | None,
                 token: str | None) -> tuple[Seek, bool]:
    """One look of a read that waits for the match (:func:`seek_status`, and whether the
    seek is matched but its game not made yet: then the look is repeated after
    :data:`MADE_LOOK_SECONDS`, as no publication says when the game is made). Reads only."""
    seek, entry = _read(stores, seek_id, who, token)
    return seek, entry.record is not None and entry.record.game is not None


def _read_until_matched(stores: Stores, seek_id: str, who: str | None, timeout: float,
                        token: str | None) -> Seek:
    """The seek once matched (its game made), or as it is after ``timeout`` seconds,
    parked on the board's watch; reads only (a match's game, made after the match woke
    the watch, is looked for as :data:`MADE_LOOK_SECONDS` says). The push tier waits the
    same way on its feed of the pool (``service/push/seeks.py``)."""
    pool = seek_pool(seek_id)
    deadline = time.monotonic() + timeout
    look = MADE_LOOK_SECONDS[0]
    with stores.seeks.watch(pool) as watch:  # subscribe first: a match after the read wakes us
        while True:
            seek, making = look_at_seek(stores, seek_id, who, token)
            remaining = deadline - time.monotonic()
            if seek.status != "waiting" or remaining <= 0:
                return seek
            if making:
                time.sleep(min(remaining, look))
                look = min(2 * look, MADE_LOOK_SECONDS[1])
            else:
                watch.wait(remaining)


def stream_holds(stores: Stores, account: Account,
                 connection: Connection | None) -> StreamHolds:
    """The holds an account's stream keeps on the account's seeks."""
    def follow_up(pool: str, game_id: str, matching: Matching) -> None:
        # inside a stream nothing can be answered: a game not made here is made by the
        # move worker's visit of the match (planned before the attempt)
        with contextlib.suppress(PlayError):
            _follow_up(stores, pool, game_id, matching)

    return StreamHolds(stores, account, connection, _parse, follow_up)


def cancel_seek(stores: Stores, seek_id: str, who: str | None) -> None:
    """Remove a waiting seek (a seeker that leaves; the bearer of its credential)."""
    pool, key = _parse(seek_id)
    record = stores.seeks.get(pool, key).record
    if record is None:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    _owned(record, who)
    done = stores.seeks.cancel(pool, key)
    if done == 2:
        raise SeekMatchedError("this seek was already matched: its seat waits in its game")
    if done == 0:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    if record.credential.startswith(ACCOUNT_PREFIX):
        stores.seeks.unindex(record.name, seek_id)
