"""Tournaments' pure parts: pairing rounds (:mod:`.pairing`) and standings from games'
records (:mod:`.standings`). Nothing here knows Flask, Redis or marshmallow; the
tournaments themselves (stored, advanced by the move workers) are
:mod:`service.play.tournaments`'s."""

from .pairing import History, Round, pair_key, pair_swiss, round_robin, round_robin_rounds
from .standings import (
    Result,
    Standing,
    history,
    points,
    result_of,
    standings,
    standings_from_records,
)

__all__ = ["History", "Result", "Round", "Standing", "history", "pair_key", "pair_swiss",
           "points", "result_of", "round_robin", "round_robin_rounds", "standings",
           "standings_from_records"]
