"""What each client has set the move workers to play: its games with bot seats, weighted.

Why: a game with bot seats costs the service CPU for as long as it runs (every bot move
is a decision a move worker makes), and a client that starts many at once would take
the workers' time from everyone else's games. The service layer caps the weight of the
unfinished bot games one client may hold (``service/play/loads.py``); this store keeps,
per client (a hash of its address), the games it started and their weights. Like the
lobby it is an index across games, written apart from the games' own saves: a game that
finished or expired is dropped when the client starts its next one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

__all__ = ["LoadStore"]


class LoadStore(ABC):
    """Per client, its games with bot seats and their weights."""

    @abstractmethod
    def held(self, client: str) -> dict[str, tuple[float, float]]:
        """The games ``client`` holds: their weights and when each was admitted (Unix
        seconds; 0 for an entry stored before that was kept)."""

    @abstractmethod
    def admit(self, client: str, game_id: str, weight: float, cap: float,
              drop: Sequence[str], ttl_seconds: int, now: float) -> float | None:
        """In one atomic step: forget the games of ``drop`` (over), then add ``game_id`` at
        ``weight``, admitted ``now``, if the total stays within ``cap`` (``None``), else
        add nothing and return the total held. The client's entry expires
        ``ttl_seconds`` after its last admission (a game's own lifetime: nothing it held
        can outlive that)."""
