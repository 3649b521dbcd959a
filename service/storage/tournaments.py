"""Tournaments: one JSON document each, changed atomically, and listed by status.

A tournament (:class:`Tournament`) is kept the way a challenge is (both share the
backends' document machinery, not an interface): a document under its own hash tag,
changed by a check-and-set (:meth:`TournamentStore.change`: the move worker's advance of
a round and a join racing a start each win or lose whole), and each account indexes the
tournaments it made or entered (how many it runs at once is counted there). Besides,
the store lists tournaments by status (``open``, ``running``, ``finished``), newest
first, for ``GET /v1/tournaments``: an index across tournaments, written after the
document and corrected on read (an entry whose tournament is gone or has moved on is
skipped).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.tournaments import Result, Round

__all__ = ["TOURNAMENT_STATUSES", "PlayedRound", "Tournament", "TournamentStore",
           "TournamentTable"]

#: The listings, by a tournament's status.
TOURNAMENT_STATUSES = ("open", "running", "finished")


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """One table of a round as paired: its game and its players in the pairing's turn
    order (the game seats them from the deal's first seat)."""

    game_id: str
    players: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"game_id": self.game_id, "players": list(self.players)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentTable:
        return cls(data["game_id"], tuple(data["players"]))


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """A round as stored once paired (numbered from 1): its byes and its tables."""

    round: int
    byes: tuple[str, ...]
    tables: tuple[TournamentTable, ...]

    def to_json(self) -> dict[str, object]:
        return {"round": self.round, "byes": list(self.byes),
                "tables": [t.to_json() for t in self.tables]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayedRound:
        return cls(data["round"], tuple(data["byes"]),
                   tuple(TournamentTable.from_json(t) for t in data["tables"]))


def _round_json(planned: Round) -> dict[str, object]:
    return {"tables": [list(t) for t in planned.tables], "byes": list(planned.byes)}


def _round(data: Mapping[str, Any]) -> Round:
    return Round(tuple(tuple(t) for t in data["tables"]), tuple(data["byes"]))


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as stored: what its creator asked for (``system``, ``seats`` per
    table, ``total_rounds``: a Swiss one's, a round robin's once scheduled), who entered
    and who is invited, where it stands (``status``; ``start_asked``: its creator started
    it, for the next visit), a round robin's ``schedule``, the rounds paired so far and
    the result of each game that ended (by game id). ``rules`` are the resolved rules as
    JSON, kept as they were written."""

    tournament_id: str
    name: str
    creator: str
    system: str
    seats: int
    total_rounds: int | None
    status: str
    open: bool
    rules: Mapping[str, Any]
    turn_seconds: int | None
    rated: bool
    entrants: tuple[str, ...]
    invited: tuple[str, ...]
    created: float
    starts_at: float | None
    start_asked: bool = False
    started: float | None = None
    finished: float | None = None
    schedule: tuple[Round, ...] | None = None
    rounds: tuple[PlayedRound, ...] = ()
    results: Mapping[str, Result] = field(default_factory=dict)

    @property
    def byes(self) -> list[str]:
        """Every bye of the rounds so far (an entrant once per bye)."""
        return [h for r in self.rounds for h in r.byes]

    def to_json(self) -> dict[str, object]:
        return {
            "tournament_id": self.tournament_id, "name": self.name,
            "creator": self.creator, "system": self.system, "seats": self.seats,
            "total_rounds": self.total_rounds, "status": self.status, "open": self.open,
            "rules": self.rules, "turn_seconds": self.turn_seconds, "rated": self.rated,
            "entrants": list(self.entrants), "invited": list(self.invited),
            "created": self.created, "starts_at": self.starts_at,
            "start_asked": self.start_asked, "started": self.started,
            "finished": self.finished,
            "schedule": None if self.schedule is None else [_round_json(r)
                                                             for r in self.schedule],
            "rounds": [r.to_json() for r in self.rounds],
            "results": {g: r.to_json() for g, r in self.results.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tournament:
        """A tournament as stored; one stored before invitations has none pending."""
        schedule = data["schedule"]
        return cls(
            tournament_id=data["tournament_id"], name=data["name"], creator=data["creator"],
            system=data["system"], seats=data["seats"], total_rounds=data["total_rounds"],
            status=data["status"], open=data["open"], rules=data["rules"],
            turn_seconds=data["turn_seconds"], rated=data["rated"],
            entrants=tuple(data["entrants"]), invited=tuple(data.get("invited", ())),
            created=data["created"], starts_at=data["starts_at"],
            start_asked=data["start_asked"], started=data["started"],
            finished=data["finished"],
            schedule=None if schedule is None else tuple(_round(r) for r in schedule),
            rounds=tuple(PlayedRound.from_json(r) for r in data["rounds"]),
            results={g: Result.from_json(r) for g, r in data["results"].items()},
        )


class TournamentStore(ABC):
    """Tournaments by id, the accounts' indexes of them, and the listings by status."""

    @abstractmethod
    def create(self, tournament: Tournament, ttl_seconds: int) -> None:
        """Store a new tournament, kept ``ttl_seconds``."""

    @abstractmethod
    def load(self, tournament_id: str) -> Tournament | None:
        """The tournament (``None``: none, or no longer kept)."""

    @abstractmethod
    def change(self, tournament_id: str,
               step: Callable[[Tournament], Tournament | None]) -> Tournament | None:
        """Apply ``step`` atomically, as :meth:`ChallengeStore.change
        <service.storage.ChallengeStore.change>` does a challenge's: ``step`` gets the
        tournament as stored and returns a new one, or ``None`` to leave it (an error it
        raises leaves it too); it may run more than once (a change landing meanwhile is
        kept, and ``step`` runs again on it), so it only computes. The tournament as
        stored after (``None``: there is none)."""

    @abstractmethod
    def index(self, handle: str, tournament_id: str, expires: float) -> None:
        """List ``tournament_id`` among ``handle``'s tournaments until ``expires`` (kept
        to the millisecond)."""

    @abstractmethod
    def unindex(self, handle: str, tournament_id: str) -> None:
        """Drop ``tournament_id`` from ``handle``'s tournaments."""

    @abstractmethod
    def indexed(self, handle: str, now: float) -> list[str]:
        """The ids of ``handle``'s tournaments not yet expired at ``now``, soonest to
        expire first (the expired ones are dropped)."""

    @abstractmethod
    def relist(self, status: str, tournament_id: str, at: float,
             unlist: str | None = None) -> None:
        """List ``tournament_id`` under ``status`` (ordered by ``at``, kept to the
        millisecond; listed already: moved to ``at``), and drop it from the listing
        ``unlist`` if given."""

    @abstractmethod
    def listed(self, status: str, before: float | None, limit: int) -> list[tuple[str, float]]:
        """Up to ``limit`` ids listed under ``status`` with their times, newest first
        (those of one millisecond in reverse id order), those older than ``before``'s
        millisecond only (a page's cursor)."""
