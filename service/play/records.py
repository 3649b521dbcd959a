"""Finished games as records: written by the save that finishes the game, served for
``RECORD_TTL_SECONDS`` after the live game's keys are gone, and replayed for the view
at any past version.

What is stored: the record (:mod:`service.verify.record`) and the seats' token hashes
(so a seat can still see its own hand at a past version once the live game expired; the
hashes are never served), as one zlib-compressed JSON value of a few KB.

Why written with the finishing save (:func:`finishing_record`, passed to
:meth:`GameStore.save`), and only there: then a finished game has its record from the
moment it is finished, in the same atomic step, and reading one never writes. A
finished game without one (finished before records were kept, or its record lost) is
answered as a game whose record expired: :class:`UnknownGameError`, a 404.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from service.core.instants import unix_of
from service.engine import Event, GameState
from service.storage import GameRecord, GameStore, Stores, UnknownGameError
from service.verify import RECORD_FORMAT, build_record, state_at

from .credentials import seat_of
from .errors import GameNotFinishedError, RecordNotReplayableError, VersionNotRecordedError
from .views import game_view_bytes

__all__ = ["FinishedRecord", "RecordSeat", "finishing_record", "game_record", "kept_records",
           "view_at"]

#: Past this zlib level the record gets no smaller worth the CPU (it is written once).
_LEVEL = 9


@dataclass(frozen=True, slots=True)
class RecordSeat:
    """Who sat at a seat of a finished game, as its record says: an account (``bot``
    when it is a bot account), a reference bot, or neither (a token's player)."""

    account: str | None
    reference_bot: str | None
    account_bot: bool

    @property
    def handle(self) -> str | None:
        """The rated name of the seat: the account's handle, or the reference bot's."""
        return self.account if self.account is not None else self.reference_bot


@dataclass(frozen=True, slots=True)
class FinishedRecord:
    """A finished game's record as kept: ``body``, the record exactly as it was built (what
    ``GET /v1/games/{id}/record`` serves, the analysis reads and a replay checks: its
    format is :mod:`service.verify.record`'s, docs/records.md), and the seats' token
    hashes (never served). What the service layer reads of it is typed here; records of
    an older format lack some fields, read as their defaults."""

    body: Mapping[str, Any]
    token_hashes: tuple[str | None, ...]

    @property
    def rated(self) -> bool:
        return bool(self.body.get("rated"))

    @property
    def places(self) -> tuple[int, ...]:
        """Each seat's place from 1 (empty in a record from before places were kept)."""
        return tuple(self.body.get("places") or ())

    @property
    def preset(self) -> str | None:
        preset: str | None = self.body["rules"].get("preset")
        return preset

    @property
    def finished_at(self) -> float:
        """When it finished (Unix seconds, to the millisecond)."""
        return unix_of(self.body["finished_at"])

    @property
    def versions(self) -> int:
        versions: int = self.body["versions"]
        return versions

    @property
    def format(self) -> str | None:
        found: str | None = self.body.get("format")
        return found

    @property
    def finish_reason(self) -> str | None:
        reason: str | None = self.body.get("finish_reason")
        return reason

    @property
    def seats(self) -> tuple[RecordSeat, ...]:
        return tuple(RecordSeat(p.get("account"), p.get("bot"), bool(p.get("account_bot")))
                     for p in self.body["players"])

    def to_blob(self) -> bytes:
        """What the record store keeps: one zlib-compressed JSON value."""
        return zlib.compress(orjson.dumps({"record": self.body,
                                           "tokens": list(self.token_hashes)}), _LEVEL)

    @classmethod
    def from_blob(cls, blob: bytes) -> FinishedRecord:
        data = orjson.loads(zlib.decompress(blob))
        return cls(data["record"], tuple(data["tokens"]))


def finishing_record(games: GameStore, before: GameRecord, new: GameState,
                     events: Sequence[Event], now: float) -> bytes | None:
    """The stored record if saving ``new`` (with ``events``) at ``now`` finishes the game,
    else None.

    Its ``finished_at`` is ``now`` to the millisecond, the instant the accounts' finished
    indexes file the game under (:func:`.effects.tell_finished` reads it back), so an
    export's ``since``/``until`` and its order agree with the records it sends."""
    if not any(e.type == "game_finished" for e in events):
        return None
    log = [*games.all_events(before.game_id), *events]
    record = build_record(before.game_id, new, log, created_at=before.created_at,
                          finished_at=round(now * 1000) / 1000)
    return FinishedRecord(record, tuple(before.token_hashes)).to_blob()


def kept_records(stores: Stores, game_ids: Sequence[str]) -> Iterator[FinishedRecord | None]:
    """The records of ``game_ids``, in order (``None`` for each game without one kept),
    as ``GET /v1/games/{id}/record`` serves them: read together (one round trip,
    :meth:`RecordStore.load_records`) when the first is asked for, each decompressed only
    when it is asked for, so a page holds its compressed records and one record decoded."""
    for blob in stores.records.load_records(game_ids):
        yield None if blob is None else FinishedRecord.from_blob(blob)


def game_record(stores: Stores, game_id: str) -> FinishedRecord:
    """The record of a finished game and its seats' token hashes (reads only);
    :class:`GameNotFinishedError` while it is played, :class:`UnknownGameError` if no
    record is kept and the game is gone or finished without one."""
    blob = stores.records.load_record(game_id)
    if blob is not None:
        return FinishedRecord.from_blob(blob)
    if stores.games.load(game_id).state.finished:
        # finished since the first read? Its save wrote the record with the state: read again
        blob = stores.records.load_record(game_id)
        if blob is None:
            raise UnknownGameError(game_id)
        return FinishedRecord.from_blob(blob)
    raise GameNotFinishedError(
        "this game is still being played: its record is kept once it is finished")


def view_at(stores: Stores, game_id: str, who: str | None,
            version: int) -> tuple[bytes, int | None]:
    """The view of a finished game at ``version`` for the bearer (a spectator without a
    token), replayed from its record; the body and the seat."""
    record = game_record(stores, game_id)
    if not 0 <= version <= record.versions:
        raise VersionNotRecordedError(
            f"this game's record has versions 0 to {record.versions}",
            versions=record.versions)
    if record.format != RECORD_FORMAT:
        raise RecordNotReplayableError(
            f"this game's record is of format {record.format!r}, which this service "
            f"no longer replays ({RECORD_FORMAT!r}): its past views cannot be shown",
            format=record.format)
    state = state_at(record.body, version)
    seat = seat_of(GameRecord(game_id, state, record.token_hashes), who)
    open_seats = [s for s, name in enumerate(state.names) if name is None]
    return game_view_bytes(game_id, state, seat, open_seats), seat
