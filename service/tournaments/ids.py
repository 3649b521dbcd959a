"""Where a tournament's games are named: the game ids (the tournament's id, the round and
the table, so a re-visit never creates a game twice).

Here, in the pure package, because the one place a game is committed
(:mod:`service.play.commit`) reads a finished game's tournament from its id to plan the
tournament's visit, and must not import the service layer's tournaments (which create
games through it).
"""

from __future__ import annotations

import re

__all__ = ["ID_LENGTH", "game_id_for", "tournament_of"]

#: A tournament's id: 12 URL-safe characters (``secrets.token_urlsafe(9)``).
ID_LENGTH = 12
#: A tournament's game id: its tournament's id, ``-r<round>-t<table>``. Every other game
#: id is 16 characters (``secrets.token_urlsafe(12)``), so none matches; all stay in the
#: URL-safe alphabet a game id is checked against.
_GAME = re.compile(rf"([A-Za-z0-9_-]{{{ID_LENGTH}}})-r[0-9]{{1,3}}-t[0-9]{{1,3}}")


def game_id_for(tournament_id: str, round_number: int, table: int) -> str:
    """The id of a tournament's game: the same at every visit, so none is made twice."""
    return f"{tournament_id}-r{round_number}-t{table}"


def tournament_of(game_id: str) -> str | None:
    """The tournament a game belongs to (``None``: it belongs to none)."""
    found = _GAME.fullmatch(game_id)
    return found.group(1) if found else None
