"""A move worker's jobs, each done by the module of what it visits: one dispatch, on the
job's type (:mod:`service.storage.jobs` parses a schedule member once, into these).

=====================  ==========================================================
job                    what its visit does
=====================  ==========================================================
``GameVisit``          the game's left effects, then the move it owes (:mod:`.moves`)
``ChallengeVisit``     expire it, or start the game of an accepted one (:mod:`.challenges`)
``TournamentVisit``    start it, keep results, pair the next round (:mod:`.tournament_rounds`)
``LadderVisit``        one pairing pass of a preset's ladder (:mod:`.ladder`)
``SeekVisit``          the game of a match whose matching request died (:mod:`.seeks`)
``RatingVisit``        queue a rated game for its rating (from before the game's own
                       events carried it)
``EvaluationVisit``    keep an evaluation's deals over, deal its next (:mod:`.evaluations`)
=====================  ==========================================================
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.storage import (
    ChallengeVisit,
    EvaluationVisit,
    GameRecord,
    GameVisit,
    LadderVisit,
    Lease,
    RatingVisit,
    SeekVisit,
    Stores,
    TournamentVisit,
)

from .challenges import visit_challenge
from .evaluations import visit_evaluation
from .ladder import visit_ladder
from .moves import visit_game
from .ratings import queue_rating
from .seeks import visit_seek
from .tournament_rounds import visit_tournament

__all__ = ["visit"]

log = logging.getLogger("three_thirteen.workers")


def visit(stores: Stores, lease: Lease,
          clock: Callable[[], float] = time.time) -> GameRecord | None:
    """Do the job of ``lease`` and release it: the game a move of it saved (``None``: no
    move, or not a game's job)."""
    try:
        job = lease.job
    except ValueError:  # a member nothing makes any more: dropped, not retried for ever
        log.warning("no job is named %r: dropped", lease.key)
        stores.schedule.release(lease, None)
        return None
    match job:
        case GameVisit(game_id):
            return visit_game(stores, lease, game_id, clock)
        case ChallengeVisit(challenge_id):
            visit_challenge(stores, lease, challenge_id, clock())
        case TournamentVisit(tournament_id):
            visit_tournament(stores, lease, tournament_id, clock())
        case LadderVisit(preset):
            visit_ladder(stores, lease, preset, clock())
        case SeekVisit(pool, game_id):
            visit_seek(stores, lease, pool, game_id)
        case RatingVisit(game_id):
            queue_rating(stores, game_id, clock())
            stores.schedule.release(lease, None)
        case EvaluationVisit(evaluation_id):
            visit_evaluation(stores, lease, evaluation_id, clock())
    return None
