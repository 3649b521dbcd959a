"""Ratings: Glicko-2 (:mod:`.glicko2`) applied to a table of 2 to 8 by the pairwise
reduction by place (:mod:`.table`), anchored by the reference bots (:mod:`.anchors`).

Pure: no I/O, no process-wide state; the service layer (:mod:`service.play.ratings`)
reads and writes the ratings, the rating worker applies them (docs/ratings.md).
"""

from .anchors import ANCHOR_DEVIATION, ANCHORS, anchor
from .glicko2 import Rating, System, update
from .table import Seat, rate_table

__all__ = ["ANCHORS", "ANCHOR_DEVIATION", "Rating", "Seat", "System", "anchor", "rate_table",
           "update"]
