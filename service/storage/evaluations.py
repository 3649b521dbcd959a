"""Evaluations: a bot account's bot measured against reference bots by duplicate deals,
until a sequential test decides or a deal limit is reached (``service/play/evaluations.py``
says how one advances).

An evaluation is a JSON document (:class:`Evaluation`), written by the request that
starts it and then only by the move worker holding its visit (a lease on the schedule),
through a compare-and-set (:meth:`EvaluationStore.change`), as a tournament is. Each deal
is written into it, with the ids of its games, before the games are created, so a visit
after a crash finds the deal and creates only the games still missing. The account
indexes its evaluations (its hash tag), to count those not done against its quota.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["EVALUATION_STATUSES", "AnchorRun", "Evaluation", "EvaluationStore", "PlayedDeal"]

#: What an evaluation is: no game made yet, games in play, every anchor decided.
EVALUATION_STATUSES = ("queued", "running", "done")


@dataclass(frozen=True, slots=True)
class PlayedDeal:
    """One deal against an anchor: its number (dealt from the evaluation's seed and the
    number), its games (one per seat rotation: the account first, then the anchor first)
    and, once every game is over, each game's places by seat (1: first; a tie shares a
    place; ``None`` while one plays on; empty when a game was aborted, which has no
    places: the deal is void, and the next is dealt in its stead)."""

    number: int
    games: tuple[str, ...]
    places: tuple[tuple[int, ...], ...] | None = None

    def to_json(self) -> dict[str, object]:
        return {"number": self.number, "games": list(self.games),
                "places": None if self.places is None else [list(p) for p in self.places]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayedDeal:
        places = data["places"]
        return cls(data["number"], tuple(data["games"]),
                   None if places is None else tuple(tuple(p) for p in places))


@dataclass(frozen=True, slots=True)
class AnchorRun:
    """The deals against one anchor (a reference bot), and why they stopped (``stop``:
    ``stronger`` or ``weaker``, the sequential test's verdict, ``deal_limit`` or
    ``canceled``; ``None`` while they go on)."""

    anchor: str
    deals: tuple[PlayedDeal, ...] = ()
    stop: str | None = None

    @property
    def finished(self) -> tuple[PlayedDeal, ...]:
        """The deals whose games are all over with a result, in the order dealt."""
        return tuple(d for d in self.deals if d.places)

    @property
    def playing(self) -> PlayedDeal | None:
        """The deal in play (one at a time per anchor), if any."""
        return next((d for d in self.deals if d.places is None), None)

    def to_json(self) -> dict[str, object]:
        return {"anchor": self.anchor, "deals": [d.to_json() for d in self.deals],
                "stop": self.stop}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnchorRun:
        return cls(data["anchor"], tuple(PlayedDeal.from_json(d) for d in data["deals"]),
                   data["stop"])


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An evaluation as stored: whose (``handle``, a bot account), on which preset's
    rules, the seed its deals are dealt from (deal ``n`` from ``f"{seed}-{n}"``, the same
    deals for every anchor; ``seed_chosen``: the account's own, else drawn by the
    service and kept secret until the end), the most deals per anchor, its status
    (:data:`EVALUATION_STATUSES`) and one run per anchor, in the order asked."""

    evaluation_id: str
    handle: str
    preset: str
    seed: str
    max_deals: int
    status: str
    created: float
    runs: tuple[AnchorRun, ...]
    finished: float | None = None
    seed_chosen: bool = False

    def to_json(self) -> dict[str, object]:
        return {"evaluation_id": self.evaluation_id, "handle": self.handle,
                "preset": self.preset, "seed": self.seed, "max_deals": self.max_deals,
                "status": self.status, "created": self.created,
                "runs": [r.to_json() for r in self.runs], "finished": self.finished,
                "seed_chosen": self.seed_chosen}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Evaluation:
        return cls(data["evaluation_id"], data["handle"], data["preset"], data["seed"],
                   data["max_deals"], data["status"], data["created"],
                   tuple(AnchorRun.from_json(r) for r in data["runs"]), data["finished"],
                   data["seed_chosen"])


class EvaluationStore(ABC):
    """Evaluations by id, and each account's index of its own."""

    @abstractmethod
    def create(self, evaluation: Evaluation, ttl_seconds: int) -> None:
        """Store a new evaluation, kept ``ttl_seconds``."""

    @abstractmethod
    def load(self, evaluation_id: str) -> Evaluation | None:
        """The evaluation (``None``: none, or no longer kept)."""

    @abstractmethod
    def change(self, evaluation_id: str,
               step: Callable[[Evaluation], Evaluation | None]) -> Evaluation | None:
        """Apply ``step`` atomically, as :meth:`.ChallengeStore.change` does (a step may
        run more than once: it only computes). The evaluation as stored after (``None``:
        there is none)."""

    @abstractmethod
    def index(self, handle: str, evaluation_id: str, expires: float) -> None:
        """List ``evaluation_id`` among ``handle``'s evaluations until ``expires``."""

    @abstractmethod
    def unindex(self, handle: str, evaluation_id: str) -> None:
        """Drop ``evaluation_id`` from ``handle``'s evaluations."""

    @abstractmethod
    def indexed(self, handle: str, now: float) -> list[str]:
        """The ids of ``handle``'s evaluations not yet expired at ``now``, soonest to
        expire first (the expired ones are dropped)."""
