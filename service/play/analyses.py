"""Finished games' analyses: asked for by a request, run by an analysis worker, read back.

Why a request only queues: an analysis is a minute of CPU (``make bench-analysis``), and
a web worker that spent it would stall every request and waiter it serves. So
:func:`request_analysis` checks the game and queues it (:class:`AnalysisStore`), an
analysis worker process runs it (:func:`run_next`, ``python -m service.workers
--analysis``), and :func:`analysis_of` reads where it stands. Reads never write.

Why a budget: a game's analysis costs its decisions times its candidates times its
worlds playouts. :func:`settings_for` gives a game the default setting unless that
would pass :data:`PLAYOUT_BUDGET` playouts, in which case it draws fewer worlds (down
to one, then fewer candidates), so no game, however long, costs a worker more than a
bounded share of its time. The settings used are in the result.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import orjson

from service.analysis.game import DECISIONS, RELOOK_SHARE, analyse
from service.analysis.judge import DEFAULT, Settings
from service.storage import (
    AnalysisState,
    QueueFullError,
    StorageUnavailableError,
    Stores,
    UnknownGameError,
)

from .errors import AnalysisBusyError, AnalysisNotRequestedError, GameAbortedError
from .records import game_record

__all__ = ["PLAYOUT_BUDGET", "PROGRESS_EVERY_SECONDS", "STALE_SECONDS", "analysis_of",
           "request_analysis", "run_next", "settings_for"]

log = logging.getLogger("three_thirteen.workers")

#: The most playouts one game's analysis may cost (about 15 ms of CPU each: some five
#: minutes of a worker's core at the most; a 4-seat, 11-round game needs at most 11,000).
PLAYOUT_BUDGET = 20_000
#: A running analysis whose worker has not been heard from for this long is taken over
#: by another worker (its worker reports progress every few seconds while it lives); the
#: default of ``ANALYSIS_STALE_SECONDS``.
STALE_SECONDS = 120.0
#: How often a running analysis reports its progress (and that its worker lives).
PROGRESS_EVERY_SECONDS = 2.0


def settings_for(record: Mapping[str, Any], default: Settings = DEFAULT) -> Settings:
    """The setting a game's analysis runs at: ``default`` within :data:`PLAYOUT_BUDGET`,
    else fewer worlds, then fewer candidate discards."""
    decisions = max(1, sum(a["type"] in DECISIONS for a in record["actions"]))
    settings = default

    def playouts(s: Settings) -> float:
        # each decision compares at most its candidates, the move taken and going out; a
        # second look (at most RELOOK_SHARE of them) the move taken, the best and the policy's
        return decisions * s.worlds * (s.candidates + 2 + RELOOK_SHARE * 3 * s.relook)

    while settings.worlds > 1 and playouts(settings) > PLAYOUT_BUDGET:
        settings = replace(settings, worlds=settings.worlds - 1)
    while settings.candidates > 1 and playouts(settings) > PLAYOUT_BUDGET:
        settings = replace(settings, candidates=settings.candidates - 1)
    while settings.relook > 1 and playouts(settings) > PLAYOUT_BUDGET:
        settings = replace(settings, relook=settings.relook - 1)
    return settings


def request_analysis(stores: Stores, game_id: str, now: float, max_queued: int,
                     ) -> tuple[dict[str, Any], bool]:
    """Queue the analysis of a finished game unless it has one: where it stands, and
    whether this request queued it. :class:`GameNotFinishedError` before the end,
    :class:`GameAbortedError` for an aborted game, :class:`AnalysisBusyError` when the
    queue is full."""
    record, _ = game_record(stores, game_id)
    if record.get("finish_reason") == "aborted":
        raise GameAbortedError("an aborted game has no result to analyse")
    try:
        known = stores.analyses.request(game_id, now, max_queued)
    except QueueFullError:
        raise AnalysisBusyError(
            f"{max_queued} analyses are waiting already; ask again in a little while",
        ) from None
    if known is None:
        return _body(AnalysisState("queued", 0.0)), True
    return _body(known), False


def analysis_of(stores: Stores, game_id: str) -> dict[str, Any]:
    """The game's analysis as ``GET …/analysis`` serves it: its status and progress,
    and once done its seats and decisions (reads only)."""
    state = stores.analyses.load(game_id)
    if state is None:
        raise AnalysisNotRequestedError(
            "no analysis of this game was asked for (or it expired): POST to ask for one")
    return _body(state)


def _body(state: AnalysisState) -> dict[str, Any]:
    body: dict[str, Any] = {"status": state.status, "progress": state.progress,
                            "seats": [], "decisions": []}
    if state.status == "done" and state.result is not None:
        body.update(orjson.loads(zlib.decompress(state.result)))
    return body


def run_next(stores: Stores, worker: str, clock: Callable[[], float] = time.time,
             block_seconds: float = 5.0, stale_seconds: float = STALE_SECONDS) -> str | None:
    """Take the next queued analysis (or a dead worker's) and run it to the end: the
    game's id, or ``None`` if none came within ``block_seconds``. An entry whose analysis
    is done is acknowledged; one another live worker runs is left pending. A storage failure
    leaves the entry pending (another worker takes it once it is stale); any other
    failure drops the analysis (a new request may queue it again) and is logged."""
    taken = stores.analyses.take(worker, block_seconds, stale_seconds)
    if taken is None:
        return None
    game_id = taken.game_id
    if not stores.analyses.start(game_id, worker, clock(), stale_seconds):
        state = stores.analyses.load(game_id)
        if state is not None and state.status == "running":
            # a live worker runs it (its entry waited long: a long game): the entry stays
            # pending, so should that worker die, it is taken again
            return None
    else:
        try:
            record, _ = game_record(stores, game_id)
            result = analyse(record, settings_for(record), _reporter(stores, game_id, clock))
            stores.analyses.finish(game_id, zlib.compress(orjson.dumps(result)))
        except UnknownGameError:  # the record expired meanwhile: nothing to keep
            stores.analyses.drop(game_id)
        except StorageUnavailableError:
            raise
        except Exception:  # a bug on one record: logged, and the next request retries it
            log.exception("the analysis of game %s failed", game_id)
            stores.analyses.drop(game_id)
    stores.analyses.ack(taken)
    return game_id


def _reporter(stores: Stores, game_id: str, clock: Callable[[], float],
              ) -> Callable[[int, int], None]:
    """A progress callback that writes at most every :data:`PROGRESS_EVERY_SECONDS`."""
    last = [clock()]

    def report(done: int, total: int) -> None:
        now = clock()
        if now - last[0] >= PROGRESS_EVERY_SECONDS and done < total:
            last[0] = now
            stores.analyses.progress(game_id, done / total, now)

    return report
