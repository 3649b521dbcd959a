"""Matchmaking's storage: the seekers waiting for the same game, matched in one step.

Seekers meet in *pools* (one resolved rule set, player count and ``rated``;
``service/play/seeks.py`` names them). Why adding and matching are one atomic step: with
the seeker added and a group of ``players`` seekers taken off the pool and each given its
game and seat at once, two racing seekers can never both take a third, and no seeker is
taken without being told: no seeker is placed twice and none is lost. The step only
writes the *match record* (enough to create the game); the game is created by the
request that matched, or by any of its seekers that finds it missing (so a worker dying
between the two loses no game).

**Which group.** Seekers are taken oldest first. Each asks for a turn clock
(``turn_seconds``) or for none (``null``); a group's clocks must agree: the seekers that
asked for one clock, with those that asked for none (the game has that clock), or only
seekers that asked for none (the game has no clock). The first group of ``players`` to
fill, scanning from the oldest, is the match.

**Held seeks, and why no ghost is matched.** A seek may be *held* by connections (a
long-poll on it, its account's stream): each :class:`Hold` names its holder, when it
lapses unless renewed (its worker died), and ``seen``: how many seekers had arrived in
the pool when the holder last found its connection open. Every arrival is numbered. A
group is matched only when every hold of every member has seen the group's newest
arrival, that is, its connection was found open *after* every member arrived; until then
the group waits, the pool's channel is woken and the holders of streams named (the
board's caller wakes them), so each holder looks at its connection and marks what it
saw (:meth:`SeekBoard.hold`). A seek whose connection closed is never found open again:
it is never matched with a seeker that arrived after the close, however the requests
race; its holder cancels it when it finds the connection closed. A hold that lapsed ends
its seek. A seek held by nothing is matched as it is.

Every step also drops the pool's expired seekers and its results older than
``results_kept_seconds``. A seeker's seat token is never stored, only its hash. The seeks
of each account are indexed apart (their streams hold them), pruned as they are read.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Hold", "MatchRecord", "Matching", "SeekBoard", "SeekEntry", "SeekRecord", "Waiter",
           "stream_holder_handle"]


class Waiter(Protocol):
    """What a seeker parks on until its pool's next match."""

    def wait(self, timeout: float) -> bool:
        """Sleep until the pool may have matched (``True``) or ``timeout`` seconds pass."""
        ...


@dataclass(frozen=True, slots=True)
class Hold:
    """A connection holding a seek: ``holder`` (``p.<random>`` for a long-poll,
    ``s.<handle>.<random>`` for an account's stream), ``until`` (Unix seconds: it lapses
    then unless renewed) and ``seen`` (the pool's arrivals when its connection was last
    found open; ``None``: keep what it saw, or, as a seek is added, its own arrival)."""

    holder: str
    until: float
    seen: int | None = None


@dataclass(frozen=True, slots=True)
class Matching:
    """What a step of the board did: the seek keys it matched, in seat order (empty:
    none), and the handles whose streams must look at their connections (a group waits
    for them)."""

    matched: list[str] = field(default_factory=list)
    wake: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SeekRecord:
    """A seek as the board keeps it (JSON ``{name, th, t, r, ag, h[, game, seat]}``, which
    the Redis board's scripts read and write too): its seeker's name, ``credential`` (the
    hash of its seat token, or its account's credential), its turn clock (``None``: it
    asks for none), ``rated``; then what the board gives it: its ``arrival`` (its number
    among the pool's arrivals), its ``holds`` (holder -> (until, Unix ms; the arrivals it
    had seen)) and, once matched, its ``game`` and ``seat``."""

    name: str
    credential: str
    turn_seconds: int | None
    rated: bool
    arrival: int | None = None
    holds: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    game: str | None = None
    seat: int | None = None

    def to_json(self) -> dict[str, object]:
        """As kept; a new seek (no arrival, no hold, unmatched) is ``{name, th, t, r}``,
        what the board is given to add."""
        out: dict[str, object] = {"name": self.name, "th": self.credential,
                                  "t": self.turn_seconds, "r": self.rated}
        if self.arrival is not None:
            out["ag"] = self.arrival
        if self.holds:
            out["h"] = {h: [until, seen] for h, (until, seen) in self.holds.items()}
        if self.game is not None:
            out.update(game=self.game, seat=self.seat)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeekRecord:
        """As kept (a seek kept before clocks, ``rated`` or holds: none of them)."""
        holds = data.get("h") or {}  # an empty Lua table is encoded as [] or {}
        return cls(data["name"], data["th"], data.get("t"), bool(data.get("r")),
                   data.get("ag"), {h: (until, seen) for h, (until, seen) in holds.items()},
                   data.get("game"), data.get("seat"))


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """What a match's game is made of (JSON ``{rules, names, ths, turn_seconds, rated}``,
    written by the step that matched): its rules as JSON, its seekers' names and
    credentials in seat order, its turn clock (``None``: none) and whether it is rated."""

    rules: Mapping[str, Any]
    names: tuple[str, ...]
    credentials: tuple[str, ...]
    turn_seconds: int | None
    rated: bool

    def to_json(self) -> dict[str, object]:
        return {"rules": self.rules, "names": list(self.names),
                "ths": list(self.credentials), "turn_seconds": self.turn_seconds,
                "rated": self.rated}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchRecord:
        """As kept (a record kept before clocks or ``rated``: none, unrated)."""
        return cls(data["rules"], tuple(data["names"]), tuple(data["ths"]),
                   data.get("turn_seconds"), bool(data.get("rated")))


@dataclass(frozen=True, slots=True)
class SeekEntry:
    """A seek as stored (``record``: ``None`` when unknown, removed or dropped), its expiry
    while it waits (Unix seconds; ``None`` once matched) and the pool's arrivals so far."""

    record: SeekRecord | None
    expires: float | None
    arrivals: int


def stream_holder_handle(holder: str) -> str | None:
    """The account whose stream a holder id names (``None``: a long-poll's)."""
    kind, _, rest = holder.partition(".")
    handle, dot, _ = rest.rpartition(".")
    return handle if kind == "s" and dot and handle else None


class SeekBoard(ABC):
    """The seekers of every pool, by seek key (a hash of the seek's id)."""

    @abstractmethod
    def add(self, pool: str, key: str, seek: SeekRecord, expires: float, players: int,
            game_id: str, rules_json: bytes, now: float, hold: Hold | None = None) -> Matching:
        """Add a seeker (``seek``: a new one, its name, credential, clock and ``rated``),
        waiting until ``expires`` (Unix seconds), held by ``hold`` (its own request) if
        given, and match (the module says which group): each matched seek gets ``game``:
        ``game_id`` and ``seat``, and the :class:`MatchRecord` of ``game_id`` is stored; a
        match, or a group waiting for its holds, wakes the pool's waiters
        (:meth:`watch`)."""

    @abstractmethod
    def hold(self, pool: str, key: str, hold: Hold, game_id: str, now: float) -> Matching | None:
        """Hold a waiting seek, or renew its hold (``until``) and mark what its holder saw
        (``seen``), then match as :meth:`add` does (``game_id`` for the game, should one
        be matched). ``None``: the seek is not waiting (matched, expired or gone)."""

    @abstractmethod
    def release(self, pool: str, key: str, holder: str, game_id: str, now: float) -> Matching:
        """End one hold of a seek that goes on waiting (its holder answered normally),
        then match as :meth:`add` does."""

    @abstractmethod
    def get(self, pool: str, key: str) -> SeekEntry:
        """A seek as stored. An expired seek may still be returned until the pool's next
        step drops it: the caller checks the expiry."""

    @abstractmethod
    def match_record(self, pool: str, game_id: str) -> MatchRecord | None:
        """What the game ``game_id`` of this pool is made of; ``None`` once dropped."""

    @abstractmethod
    def cancel(self, pool: str, key: str) -> int:
        """Take a waiting seeker off its pool: 1 removed, 2 already matched, 0 unknown."""

    @abstractmethod
    def watch(self, pool: str) -> AbstractContextManager[Waiter]:
        """Wake on this pool's next match (or group waiting for its holds), for the
        duration of a ``with`` block: read the seek *after* entering it, so a match after
        the read is never missed."""

    @abstractmethod
    def index(self, handle: str, seek_id: str, expires: float) -> None:
        """Note a seek of the account ``handle`` (until ``expires``, kept to the
        millisecond: seeks expiring in one millisecond are listed in id order), for its
        streams."""

    @abstractmethod
    def indexed(self, handle: str, now: float) -> list[str]:
        """The ids of the account's seeks noted and not expired, oldest first (a read
        only: the caller unindexes what it finds gone)."""

    @abstractmethod
    def unindex(self, handle: str, seek_id: str) -> None:
        """Forget a seek of the account (matched, canceled or gone)."""
