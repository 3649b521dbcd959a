"""Matchmaking: seekers of the same table (resolved rules, decks and player count) meet
in one game.

A seek's seat token is a random secret made when the seek is opened and shown only in
that answer; only its hash is stored, as for every seat. The seek is read and cancelled
with it (``Authorization: Bearer``), so its id (``<table digest>.<players>.<random>``)
is not a secret. Matching is one atomic step of the seek board
(:mod:`service.storage.seeks`); the game is then created by the request that matched,
or by the first of its seekers to find it missing. A game from matchmaking is never
seeded by anyone (its seed is a fresh secret) and is listed in the lobby's
``in_progress`` games, to watch.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from service.engine.game import check_players
from service.engine.serialize import rules_from_json
from service.storage import Account, GameExistsError, SeekBoard, Stores, UnknownGameError

from .credentials import ACCOUNT_PREFIX, account_credential, hash_token
from .errors import AuthError, SeekMatchedError, UnknownSeekError
from .games import create_game

__all__ = ["Seek", "cancel_seek", "open_seek", "seek_status", "wait_for_match"]

_SEEK_ID = re.compile(r"([0-9a-f]{16})\.([2-8])\.([A-Za-z0-9_-]{32})")


@dataclass(frozen=True, slots=True)
class Seek:
    """A seek as its seeker sees it (``token`` only once matched)."""

    seek_id: str
    status: str  # "waiting" | "matched"
    name: str
    players: int
    expires: float | None
    game_id: str | None = None
    seat: int | None = None
    token: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The response body of the seek endpoints."""
        expires = None if self.expires is None else datetime.fromtimestamp(
            self.expires, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        return {"seek_id": self.seek_id, "status": self.status, "name": self.name,
                "players": self.players, "expires": expires, "game_id": self.game_id,
                "seat": self.seat, "token": self.token}


def _pool(rules_spec: dict[str, Any] | str | None, players: int) -> tuple[str, bytes]:
    """The pool's name and the table's rules (as JSON): seekers whose specs resolve to the
    same game meet (``{"preset": "classic"}`` and ``"classic"`` spelled out, ``decks:
    "auto"`` and the number it comes to for this many players)."""
    spec = {"preset": rules_spec} if isinstance(rules_spec, str) else rules_spec
    rules = rules_from_json(spec)
    check_players(rules, players)  # playable by this many (a shoe big enough)? Fail now
    table = {**rules.to_dict(), "decks": rules.decks_for(players)}
    blob = orjson.dumps(table, option=orjson.OPT_SORT_KEYS)
    return f"{hashlib.sha256(blob).hexdigest()[:16]}.{players}", blob


def _parse(seek_id: str) -> tuple[str, str]:
    """The pool and storage key of a seek id (:class:`UnknownSeekError` if malformed)."""
    found = _SEEK_ID.fullmatch(seek_id)
    if found is None:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    return f"seek.{found[1]}.{found[2]}", hashlib.sha256(seek_id.encode()).hexdigest()[:32]


def open_seek(stores: Stores, rules_spec: dict[str, Any] | str | None,
              players: int, name: str, ttl_seconds: float,
              account: Account | None = None) -> Seek:
    """Add a seeker (an ``account``, named by its handle and seated by its key, or else a
    fresh seat token, shown once: in this answer); if it completes a game, create that
    game now. The seek is answered from what the add returned (no read of what was just
    written)."""
    pool_name, table_json = _pool(rules_spec, players)
    seek_id = f"{pool_name}.{secrets.token_urlsafe(24)}"
    pool, key = _parse(seek_id)
    now = time.time()
    game_id = secrets.token_urlsafe(12)
    if account is not None:
        token, name, credential = None, account.handle, account_credential(account.handle)
    else:
        token = secrets.token_urlsafe(32)
        credential = hash_token(token)
    seek = {"name": name, "th": credential}
    expires = round((now + ttl_seconds) * 1000) / 1000  # as stored (Unix ms)
    matched = stores.seeks.add(pool, key, seek, expires, players, game_id, table_json, now)
    if not matched:
        return Seek(seek_id, "waiting", name, players, expires, token=token)
    _create(stores, pool, game_id)
    return Seek(seek_id, "matched", name, players, None, game_id, matched.index(key), token)


def _create(stores: Stores, pool: str, game_id: str) -> None:
    """Create a matched game from its record, unless someone already did."""
    record = stores.seeks.match_record(pool, game_id)
    if record is None:
        raise UnknownSeekError("the match of this seek is gone")
    accounts = [stores.accounts.load(name) if th.startswith(ACCOUNT_PREFIX) else None
                for name, th in zip(record["names"], record["ths"], strict=True)]
    with contextlib.suppress(GameExistsError):  # a racing seeker created it first
        create_game(stores, record["rules"], record["names"], None,
                    token_hashes=record["ths"], game_id=game_id, accounts=accounts)


def _owned(record: dict[str, Any], who: str | None) -> None:
    """Refuse a bearer that is not the seek's own (:class:`AuthError`, a 401)."""
    if who is None:
        raise AuthError("a seek is read with its token (or its account's key): send "
                        "Authorization: Bearer <token>")
    if not hmac.compare_digest(record["th"], who):
        raise AuthError("this token is not this seek's")


def seek_status(stores: Stores, seek_id: str, who: str | None,
                token: str | None = None) -> Seek:
    """The seek now, for its seeker (the bearer of the credential ``who``; its seat
    ``token``, when it has one, is repeated in the answer); a matched seek's game exists
    once this returns."""
    pool, key = _parse(seek_id)
    record, expires = stores.seeks.get(pool, key)
    players = int(pool.rsplit(".", 1)[1])
    if record is None or (expires is not None and expires <= time.time()):
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    _owned(record, who)
    if "game" not in record:
        return Seek(seek_id, "waiting", record["name"], players, expires, token=token)
    game_id = record["game"]
    try:
        stores.games.load(game_id)
    except UnknownGameError:  # the matching request did not get to create it: do it here
        _create(stores, pool, game_id)
    return Seek(seek_id, "matched", record["name"], players, None, game_id,
                record["seat"], token)


def wait_for_match(stores: Stores, seek_id: str, who: str | None, timeout: float,
                   token: str | None = None) -> Seek:
    """The seek once matched, or as it is after ``timeout`` seconds (parked on the board's
    watch: the worker's hub on Redis)."""
    pool, _ = _parse(seek_id)
    deadline = time.monotonic() + timeout
    with stores.seeks.watch(pool) as watch:  # subscribe first: a match after the read wakes us
        seek = seek_status(stores, seek_id, who, token)
        while seek.status == "waiting":
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not watch.wait(remaining):
                break
            seek = seek_status(stores, seek_id, who, token)
    return seek


def cancel_seek(board: SeekBoard, seek_id: str, who: str | None) -> None:
    """Remove a waiting seek (a seeker that leaves; the bearer of its credential)."""
    pool, key = _parse(seek_id)
    record, _ = board.get(pool, key)
    if record is None:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
    _owned(record, who)
    done = board.cancel(pool, key)
    if done == 2:
        raise SeekMatchedError("this seek was already matched: its seat waits in its game")
    if done == 0:
        raise UnknownSeekError("there is no seek with this id (or it expired)")
