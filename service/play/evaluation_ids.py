"""Where an evaluation's games are named: the evaluation's id, the anchor, the deal and
the seat rotation, so a re-visit never creates a game twice and a finished game tells
which evaluation to visit.

A module of its own, importing nothing of this layer, because the game's effects
(:mod:`.effects`, run by the one place a game is committed) read a finished game's
evaluation from its id to plan the evaluation's visit, and must not import
:mod:`.evaluations` (which creates games through the commit).
"""

from __future__ import annotations

import re

__all__ = ["ID_LENGTH", "evaluation_of", "game_id_for"]

#: An evaluation's id: 12 URL-safe characters (``secrets.token_urlsafe(9)``).
ID_LENGTH = 12
#: An evaluation's game id: ``<evaluation id>-<anchor>-d<deal>-s<rotation>``. No other
#: game id ends so (a tournament's ends ``-r<round>-t<table>``, every other id is 16
#: characters of no fixed form but shorter than these), and all stay in the URL-safe
#: alphabet a game id is checked against.
_GAME = re.compile(rf"([A-Za-z0-9_-]{{{ID_LENGTH}}})-[a-z]+-d[0-9]{{1,5}}-s[0-9]")


def game_id_for(evaluation_id: str, anchor: str, deal: int, rotation: int) -> str:
    """The id of one game of an evaluation: the same at every visit."""
    return f"{evaluation_id}-{anchor}-d{deal}-s{rotation}"


def evaluation_of(game_id: str) -> str | None:
    """The evaluation a game belongs to (``None``: it belongs to none)."""
    found = _GAME.fullmatch(game_id)
    return found.group(1) if found else None
