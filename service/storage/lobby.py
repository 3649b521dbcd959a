"""The lobby's listings: games with open seats to join, games being played to watch.

Why an index of its own, written apart from the game's save: on a Redis Cluster an
index of many games cannot share one game's key slot, so no script can write both. A
listing is therefore a hint that readers check against the games themselves: a game is
listed *before* it is created (a failed creation leaves an entry that reads skip) and
moved after it changes (a failed move leaves an entry that reads skip). Reads never
correct it: an entry whose game expired, filled up or finished is skipped by every read
and moved or removed by a move worker's prune (``service/play/lobby.py``), so a GET of the
lobby writes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["LISTINGS", "LobbyStore"]

#: The lobby's listings: games with open seats, and games being played (to spectate).
LISTINGS = ("open", "in_progress")


class LobbyStore(ABC):
    """The listings of :data:`LISTINGS`: game ids ordered by their created time."""

    @abstractmethod
    def list_game(self, game_id: str, listing: str, created: float) -> None:
        """Put ``game_id`` on ``listing``, ordered by its ``created`` time (Unix seconds,
        kept to the millisecond; listed already: moved to ``created``).
        An open game lives a fixed time from its creation, so listing one may also drop
        the open entries older than that (they can no longer exist)."""

    @abstractmethod
    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        """Move ``game_id`` from ``listing`` to ``to`` (``None``: off the lobby), keeping its
        created time, in one atomic step; nothing if it is not on ``listing`` (an unlisted
        game stays so, and two racing moves of one entry make one)."""

    @abstractmethod
    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        """Up to ``count`` ``(game_id, created)`` of ``listing``, newest first, strictly
        after the cursor ``before`` (the ``(created, game_id)`` of the previous page's
        last entry); entries of one created millisecond come in reverse id order."""
