"""Finished games' analyses: asked for by a request, run by an analysis worker, read back.

Why a request only queues: an analysis is a minute of CPU (``make bench-analysis``), and
a web worker that spent it would stall every request and waiter it serves. So
:func:`request_analysis` checks the game and queues it (:class:`AnalysisStore`), an
analysis worker process runs it (:func:`run_next`, ``python -m service.workers
--analysis``), and :func:`analysis_of` reads where it stands. Reads never write.

Why a budget in engine steps: a game's analysis costs its decisions times its
candidates times its worlds playouts, and each playout as many steps as its round has
left to run, which the game decides (a stalled round runs to its turn limit). So every
analysis may take at most :data:`STEP_BUDGET` steps, counted where the playouts apply
them (:mod:`service.analysis.budget`): a game that would take more is judged on fewer
worlds (then fewer candidates) per decision, and past that some decisions are left
unjudged, so no game, however long, costs a worker more than a bounded share of its
time (docs/analysis.md gives it in CPU seconds). Each decision says the worlds it drew,
the result the steps spent.

When an analysis is done, the mistakes of each account that held a seat are filed under
it (:mod:`.mistakes`) before the analysis is marked done.

Why a requester: the queue is fair between those who ask (:mod:`service.storage.analyses`),
and a requester is a hash of the client's address (:func:`requester_of`), so the queue
holds no address.

Automatic analysis (:func:`auto_analysis`): an account that set ``analyse_rated`` has each
of its rated games queued when it finishes, by the game-finished effect (:mod:`.effects`,
from the game's event log: never in the request beyond the effects' fast path). Nobody
asks at the time, so each is counted against the account's quota
(``ANALYSIS_AUTO_PER_DAY`` in any 24 hours; :meth:`~service.storage.AnalysisStore.charge`),
and the account is the requester, so one account's games take their turn in the queue
like one client's requests. A game with an analysis queued or done already costs nothing.
"""

from __future__ import annotations

import hashlib
import logging
import time
import zlib
from collections.abc import Callable

import orjson

from service.analysis.game import analyse
from service.analysis.judge import DEFAULT, Settings
from service.storage import (
    AnalysisState,
    QueueFullError,
    StorageUnavailableError,
    Stores,
    UnknownGameError,
    folded,
)

from .errors import AnalysisBusyError, AnalysisNotRequestedError, GameAbortedError
from .mistakes import file_mistakes
from .records import game_record

__all__ = ["PROGRESS_EVERY_SECONDS", "STALE_SECONDS", "STEP_BUDGET", "analysis_of",
           "auto_analysis", "request_analysis", "requester_of", "run_next"]

log = logging.getLogger("three_thirteen.workers")

#: The most engine steps one game's analysis may take in its playouts, each decision's
#: other work counted as :data:`service.analysis.budget.DECISION_STEPS` more. A 4-seat,
#: 11-round classic game of 420 to 430 decisions takes some 90,000 at the default
#: setting; docs/analysis.md#cost gives the steps a CPU-second.
STEP_BUDGET = 150_000
#: A running analysis whose worker has not been heard from for this long is taken over
#: by another worker (its worker reports progress every few seconds while it lives); the
#: default of ``ANALYSIS_STALE_SECONDS``.
STALE_SECONDS = 120.0
#: How often a running analysis reports its progress (and that its worker lives).
PROGRESS_EVERY_SECONDS = 2.0


def requester_of(address: str) -> str:
    """Who asked for an analysis, as the queue knows it: a hash of the client's address
    (the queue is fair between requesters and keeps no address)."""
    return hashlib.sha256(address.encode()).hexdigest()[:24]


def request_analysis(stores: Stores, game_id: str, now: float, max_queued: int, *,
                     requester: str) -> tuple[dict[str, object], bool]:
    """Queue the analysis of a finished game for ``requester`` (:func:`requester_of`)
    unless it has one: where it stands, and whether this request queued it.
    :class:`GameNotFinishedError` before the end, :class:`GameAbortedError` for an aborted
    game, :class:`AnalysisBusyError` when the queue is full. An analysis kept from before
    the result's format changed (:func:`_outdated`) is dropped and queued again."""
    if game_record(stores, game_id).finish_reason == "aborted":
        raise GameAbortedError("an aborted game has no result to analyse")
    try:
        known = stores.analyses.request(game_id, now, max_queued, requester)
        if known is not None and _outdated(known):
            stores.analyses.drop(game_id)
            known = stores.analyses.request(game_id, now, max_queued, requester)
    except QueueFullError:
        raise AnalysisBusyError(
            f"{max_queued} analyses are waiting already; ask again in a little while",
        ) from None
    if known is None:
        return _body(AnalysisState("queued", 0.0)), True
    return _body(known), False


def auto_analysis(stores: Stores, game_id: str, handle: str, now: float) -> str:
    """Queue the finished game's analysis for ``handle``'s ``analyse_rated``, within its
    quota: ``known`` (one is queued, running or done already: nothing counted),
    ``queued`` (counted against the quota), ``quota`` (the account had its
    ``auto_per_day`` in the last day: skipped) or ``busy`` (the queue is full: skipped,
    not counted). Idempotent: run again, a game queued is ``known``, one counted is not
    counted twice, one past the quota is past it still."""
    known = stores.analyses.load(game_id)
    if known is not None and not _outdated(known):
        return "known"
    if not stores.analyses.charge(handle, game_id, now):
        return "quota"
    try:
        request_analysis(stores, game_id, now, stores.analyses.max_queued,
                         requester=requester_of(f"account:{folded(handle)}"))
    except AnalysisBusyError:
        stores.analyses.refund(handle, game_id)
        return "busy"
    return "queued"


def analysis_of(stores: Stores, game_id: str) -> dict[str, object]:
    """The game's analysis as ``GET …/analysis`` serves it: its status and progress,
    and once done its seats and decisions (reads only)."""
    state = stores.analyses.load(game_id)
    if state is None or _outdated(state):
        raise AnalysisNotRequestedError(
            "no analysis of this game was asked for (or it expired, or was made before "
            "the analysis' format changed): POST to ask for one")
    return _body(state)


def _result(state: AnalysisState) -> dict[str, object] | None:
    if state.status == "done" and state.result is not None:
        result: dict[str, object] = orjson.loads(zlib.decompress(state.result))
        return result
    return None


def _outdated(state: AnalysisState) -> bool:
    """A result kept from before each decision said who made it and the analysis its
    steps (it judged the service's moves for a seat as the player's), or from before
    luck was priced per draw (its seats have no ``adjusted_total``, its decisions no
    ``position``): not served."""
    result = _result(state)
    if result is None:
        return False
    seats = result.get("seats") or [{}]
    return "steps" not in result or not isinstance(seats, list) or any(
        "adjusted_total" not in seat for seat in seats)


def _body(state: AnalysisState) -> dict[str, object]:
    body: dict[str, object] = {"status": state.status, "progress": state.progress,
                            "seats": [], "decisions": []}
    body.update(_result(state) or {})
    return body


def run_next(stores: Stores, worker: str, clock: Callable[[], float] = time.time,
             block_seconds: float = 5.0, stale_seconds: float = STALE_SECONDS,
             settings: Settings = DEFAULT) -> str | None:
    """Take the next queued analysis (or a dead worker's) and run it to the end at
    ``settings`` (the deployment's ``ANALYSIS_SETTING``): the
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
            record = game_record(stores, game_id)
            result = analyse(record.body, settings, _reporter(stores, game_id, clock),
                             steps=STEP_BUDGET)
            # filed first: a worker that dies in between leaves the analysis to be run
            # again (and filed again), never done with its mistakes unfiled
            file_mistakes(stores, game_id, record, result)
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
