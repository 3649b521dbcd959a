"""Evaluation on demand: a bot account's own bot measured against reference bots (the
anchors it names) by duplicate deals, reported as an Elo difference against each anchor
with its 95% interval (docs/evaluations.md).

Each deal is dealt twice from one seed (deal ``n`` from ``f"{seed}-{n}"``, the same deals
for every anchor): once with the account in the first seat and the anchor in the second,
once the other way round (:func:`service.match.duplicate.rotations`), so both play the
same hands and what is left of the difference is mostly play. The games are unrated,
with the ladder's turn clock; the account's seat is held by its key, so its bot hears
``your_turn`` on its account stream and plays over HTTP as on the ladder, and the
anchor's seat is the move workers'. The statistics are :mod:`service.match.duplicate`'s,
the same functions ``python -m service.match --duplicate`` reports with: a deal's share
(how often the account finished ahead of the anchor over the deal's two games), and the
Elo difference read from the shares with its interval, clustered by deal.

Who finished ahead is each game's own verdict (its places: the lower total, the preset's
tie-break, a seat that resigned behind one that did not), where the offline match compares
totals alone: the two agree on every game but one whose totals tie and a tie-break
decides (there the match counts a half), or one a seat resigned.

Advancing an evaluation is a move worker's job (an :class:`~service.storage.EvaluationVisit`):
a visit is planned when the evaluation starts and when any of its games ends (the game's
effects, :func:`.effects.advance_evaluation`), and every :data:`REVISIT_SECONDS` while it
runs besides. A visit keeps the result of every deal whose two games are over, stops an
anchor once the sequential test (:data:`SPRT`) decides or its deal limit is reached, and
deals the next deal of each anchor still going, at most :data:`GAMES_AT_ONCE` games in
play. Each deal is written into the evaluation before its games are created, under
game ids made of the evaluation, the anchor, the deal and the rotation
(:func:`.evaluation_ids.game_id_for`), so a visit after a crash creates only the games
still missing. After each visit that saw deals finished, the account hears an
``evaluation_progress`` note with the results so far (once per count of deals
finished).

What bounds the work: one evaluation not done per account (:data:`MAX_RUNNING`), at most
:data:`MAX_DEALS` deals per anchor, one deal per anchor in play and
:data:`GAMES_AT_ONCE` games at once. The games are admitted as every game is
(:func:`.admission.admit`), on the evaluation's own path, counted against no client's
cap, as the ladder's are.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
from collections.abc import Sequence

from service.bots import BOTS
from service.core.instants import instant
from service.core.rules import PRESETS
from service.engine import places
from service.match.duplicate import Deal, Sprt, pair_stats, rotations
from service.storage import (
    Account,
    AnchorRun,
    Evaluation,
    EvaluationVisit,
    GameExistsError,
    GameRecord,
    Lease,
    PlayedDeal,
    Stores,
    member_of,
)

from .admission import agreed_in_evaluation
from .errors import (
    EvaluationForBotsError,
    InvalidEvaluationError,
    TooManyEvaluationsError,
    UnknownEvaluationError,
)
from .evaluation_ids import game_id_for
from .games import create_game
from .ladder import LADDER_TURN_SECONDS, MAX_GAMES_AT_ONCE
from .notes import tell

__all__ = [
    "DEFAULT_DEALS",
    "GAMES_AT_ONCE",
    "KEPT_SECONDS",
    "MAX_DEALS",
    "MAX_RUNNING",
    "MIN_DEALS",
    "REVISIT_SECONDS",
    "SPRT",
    "Outcomes",
    "advance",
    "evaluation_json",
    "read_evaluation",
    "results_of",
    "start_evaluation",
    "visit_evaluation",
]

#: The sequential test that stops an anchor's deals: is the bot 50 points weaker than the
#: anchor (H0) or 50 points stronger (H1)? Symmetric about the anchor, because the
#: question an evaluation answers is on which side of each anchor a bot lies; a 100-point
#: zone of indifference still places a bot between ``random``, ``greedy`` and ``strong``
#: (700 and 140 points apart, ``service/ratings/anchors.py``), and where anchors sit
#: closer the interval tells. Error rates of 5% each way.
SPRT = Sprt(-50.0, 50.0, 0.05, 0.05)
#: The deals per anchor at most, and by default.
MAX_DEALS = 200
DEFAULT_DEALS = 200
#: The fewest deals per anchor one may ask for (one deal's share has no spread to read).
MIN_DEALS = 2
#: The most games of one evaluation in play at once: as many as the ladder lets a member
#: play (two deals of two games).
GAMES_AT_ONCE = MAX_GAMES_AT_ONCE
#: Evaluations not done per account (a new one is refused until the last is done).
MAX_RUNNING = 1
#: How long an evaluation is kept after it starts (its games are kept as any game).
KEPT_SECONDS = 30 * 86_400
#: The next visit of a running evaluation at the latest: its games' ends bring it forward;
#: this is the safety net should an end's effect be late.
REVISIT_SECONDS = 30.0
#: The account's label in the statistics (no reference bot has this name).
BOT = "bot"


def _seats(anchor: str) -> list[list[str]]:
    """A deal's seatings, by label: the account first, then the anchor first."""
    return rotations([BOT, anchor])


def start_evaluation(stores: Stores, account: Account, preset: str,
                     anchors: Sequence[str], now: float, *, max_deals: int | None = None,
                     seed: str | None = None) -> Evaluation:
    """Start evaluating ``account``'s bot against ``anchors`` on ``preset``'s rules: at
    most ``max_deals`` deals per anchor (default :data:`DEFAULT_DEALS`), dealt from
    ``seed`` (default: drawn here). Queued: a move worker deals its first deals at once."""
    if not account.bot:
        raise EvaluationForBotsError("an evaluation plays your bot: it is for bot accounts "
                                     '(create one with "bot": true)')
    if preset not in PRESETS:
        raise InvalidEvaluationError(f"there is no preset {preset!r}: one of "
                                     f"{', '.join(PRESETS)}")
    unknown = [a for a in anchors if a not in BOTS]
    if not anchors or unknown or len(set(anchors)) != len(anchors):
        raise InvalidEvaluationError(
            f"anchors are reference bots, each once: {', '.join(BOTS)}"
            + (f" ({unknown[0]!r} is none)" if unknown else ""))
    deals = DEFAULT_DEALS if max_deals is None else max_deals
    if not MIN_DEALS <= deals <= MAX_DEALS:
        raise InvalidEvaluationError(f"max_deals is from {MIN_DEALS} to {MAX_DEALS}")
    running = [e for e in (stores.evaluations.load(i)
                           for i in stores.evaluations.indexed(account.handle, now))
               if e is not None and e.status != "done"]
    if len(running) >= MAX_RUNNING:
        raise TooManyEvaluationsError(
            f"your evaluation {running[0].evaluation_id} is not done yet: one at a time",
            evaluation_id=running[0].evaluation_id, cap=MAX_RUNNING)
    evaluation = Evaluation(
        evaluation_id=secrets.token_urlsafe(9), handle=account.handle, preset=preset,
        seed=seed if seed is not None else secrets.token_hex(8), max_deals=deals,
        status="queued", created=now, runs=tuple(AnchorRun(a) for a in anchors),
        seed_chosen=seed is not None)
    stores.evaluations.create(evaluation, KEPT_SECONDS)
    # the visit before the index: a crash between the two leaves an evaluation that runs
    # (uncounted once), never one counted against the quota that nobody advances
    stores.schedule.plan(member_of(EvaluationVisit(evaluation.evaluation_id)), now)
    stores.evaluations.index(account.handle, evaluation.evaluation_id, now + KEPT_SECONDS)
    return evaluation


def read_evaluation(stores: Stores, account: Account, evaluation_id: str) -> Evaluation:
    """``account``'s evaluation ``evaluation_id`` (another account's is unknown to it)."""
    evaluation = stores.evaluations.load(evaluation_id)
    if evaluation is None or evaluation.handle.casefold() != account.handle.casefold():
        raise UnknownEvaluationError(f"you have no evaluation {evaluation_id!r}")
    return evaluation


def _deals(evaluation: Evaluation, run: AnchorRun) -> list[Deal]:
    """The finished deals of ``run`` as :mod:`service.match.duplicate` reads deals."""
    seats = tuple(tuple(s) for s in _seats(run.anchor))
    return [Deal(f"{evaluation.seed}-{d.number}", seats, d.places)
            for d in run.finished if d.places]


def _shares(evaluation: Evaluation, run: AnchorRun) -> list[float]:
    return [d.share(BOT, run.anchor) for d in _deals(evaluation, run)]


def results_of(evaluation: Evaluation) -> list[dict[str, object]]:
    """Per anchor: the deals finished, the Elo difference of the account's bot against it
    with its 95% interval (``None`` before a deal is over), the share the Elo is read
    from, and why its deals stopped (``None`` while they go on)."""
    out: list[dict[str, object]] = []
    for run in evaluation.runs:
        deals = _deals(evaluation, run)
        stats = pair_stats(deals, BOT, run.anchor) if deals else None
        out.append({
            "anchor": run.anchor, "deals": len(deals),
            "elo": None if stats is None else stats["elo"],
            "elo_low": None if stats is None else stats["elo_low"],
            "elo_high": None if stats is None else stats["elo_high"],
            "share": None if stats is None else stats["share"],
            "stop": run.stop,
        })
    return out


def evaluation_json(evaluation: Evaluation) -> dict[str, object]:
    """An evaluation as its account reads it: what was asked, its status, the results per
    anchor with the ids of their games (each kept, with its record, as any game)."""
    results = results_of(evaluation)
    for result, run in zip(results, evaluation.runs, strict=True):
        result["games"] = [g for d in run.deals for g in d.games]
    return {
        "evaluation_id": evaluation.evaluation_id, "status": evaluation.status,
        "account": evaluation.handle, "preset": evaluation.preset,
        # a seed deals every card of every deal: one the service drew is told at the end
        "seed": evaluation.seed if evaluation.seed_chosen or evaluation.status == "done"
        else None,
        "anchors": [r.anchor for r in evaluation.runs], "max_deals": evaluation.max_deals,
        "sprt": {"elo0": SPRT.elo0, "elo1": SPRT.elo1, "alpha": SPRT.alpha,
                 "beta": SPRT.beta},
        "created_at": instant(evaluation.created),
        "finished_at": None if evaluation.finished is None else instant(evaluation.finished),
        "results": results,
    }


#: The places of a deal one of whose games was aborted (no result): the deal is void, and
#: the next is dealt in its stead.
_VOID: tuple[tuple[int, ...], ...] = ()


def _outcome(records: Sequence[GameRecord | None]) -> tuple[tuple[int, ...], ...] | None:
    """The places of a deal's games once all are over (``_VOID``: one was aborted, so has
    none), else ``None`` (one plays on, or is still to be created)."""
    if any(r is None or not r.state.finished for r in records):
        return None
    places_of = [places(r.state) for r in records if r is not None]
    return _VOID if any(not p for p in places_of) else tuple(places_of)


def _stop(evaluation: Evaluation, run: AnchorRun) -> str | None:
    """Why ``run``'s deals stop now (``None``: they go on): the test's verdict, or the
    limit of deals finished (or dealt: void deals are dealt again, up to twice the limit
    in all)."""
    verdict = SPRT.verdict(_shares(evaluation, run))
    if verdict is not None:
        return "stronger" if verdict == "H1" else "weaker"
    dealt = 1 + max((d.number for d in run.deals), default=-1)
    if len(run.finished) >= evaluation.max_deals or dealt >= 2 * evaluation.max_deals:
        return "deal_limit"
    return None


Outcomes = dict[tuple[str, ...], tuple[tuple[int, ...], ...]]


def advance(evaluation: Evaluation, outcomes: Outcomes, now: float,
            closed: bool = False) -> Evaluation:
    """The evaluation after a visit (pure): each anchor's deal in play given its
    ``outcomes`` (by the deal's games: their places; ``_VOID``: dealt again), each anchor
    stopped whose test decided or whose deals reached the limit (all of them,
    ``canceled``, once the account is ``closed``), the next deal of each anchor going on
    while fewer than :data:`GAMES_AT_ONCE` games are in play (the anchors with the fewest
    deals first), and the status that follows."""
    runs: list[AnchorRun] = []
    for run in evaluation.runs:
        playing = run.playing
        if playing is not None and playing.games in outcomes:
            run = dataclasses.replace(run, deals=tuple(
                dataclasses.replace(d, places=outcomes[d.games]) if d is playing else d
                for d in run.deals))
        if run.stop is None and run.playing is None:
            stop = "canceled" if closed else _stop(evaluation, run)
            if stop is not None:
                run = dataclasses.replace(run, stop=stop)
        runs.append(run)
    in_play = sum(len(r.playing.games) for r in runs if r.playing is not None)
    # room goes first to the anchors with the fewest deals dealt: each is measured in turn
    for i in sorted(range(len(runs)), key=lambda i: (len(runs[i].deals), i)):
        run = runs[i]
        if run.stop is not None or run.playing is not None or in_play + 2 > GAMES_AT_ONCE:
            continue
        number = 1 + max((d.number for d in run.deals), default=-1)
        games = tuple(game_id_for(evaluation.evaluation_id, run.anchor, number, r)
                      for r in range(len(_seats(run.anchor))))
        runs[i] = dataclasses.replace(run, deals=(*run.deals, PlayedDeal(number, games)))
        in_play += len(games)
    done = all(r.stop is not None for r in runs)
    status = "done" if done else "running" if any(r.deals for r in runs) else "queued"
    return dataclasses.replace(evaluation, runs=tuple(runs), status=status,
                               finished=now if done else None)


def _create_missing(stores: Stores, evaluation: Evaluation, account: Account) -> list[str]:
    """Create the games of the deals in play that do not exist yet (all of a fresh
    deal's; after a crash, those it left unmade): the ids created."""
    made: list[str] = []
    for run in evaluation.runs:
        deal = run.playing
        if deal is None:
            continue
        records = stores.games.load_many(list(deal.games))
        for rotation, (game_id, record) in enumerate(zip(deal.games, records, strict=True)):
            if record is not None:
                continue
            order = _seats(run.anchor)[rotation]
            with contextlib.suppress(GameExistsError):  # a racing visit made it
                create_game(
                    stores, {"preset": evaluation.preset},
                    [evaluation.handle if x == BOT else x for x in order],
                    f"{evaluation.seed}-{deal.number}",
                    bots=[None if x == BOT else x for x in order],
                    accounts=[account if x == BOT else None for x in order],
                    turn_seconds=LADDER_TURN_SECONDS, game_id=game_id, rated=False,
                    secret_seed=not evaluation.seed_chosen,
                    agreed=agreed_in_evaluation(evaluation))
                made.append(game_id)
    return made


def _progress(evaluation: Evaluation) -> tuple[str, dict[str, object]]:
    """The note of the results so far, kept once per count of deals finished."""
    finished = sum(len(r.finished) for r in evaluation.runs)
    return (f"ev:{evaluation.evaluation_id}:{finished}",
            {"type": "evaluation_progress", "evaluation_id": evaluation.evaluation_id,
             "status": evaluation.status, "results": results_of(evaluation)})


def visit_evaluation(stores: Stores, lease: Lease, evaluation_id: str, now: float) -> list[str]:
    """One visit of an evaluation (the job of ``lease``): keep the results of the deals
    over, stop what is decided, deal what comes next, create its games, tell the account.
    The games created. Released with a next visit while the evaluation runs."""
    evaluation = stores.evaluations.load(evaluation_id)
    if evaluation is None or evaluation.status == "done":
        stores.schedule.release(lease, None)
        return []
    account = stores.accounts.load(evaluation.handle)
    closed = account is None or account.closed
    outcomes: Outcomes = {}
    for run in evaluation.runs:
        deal = run.playing
        if deal is not None:
            placed = _outcome(stores.games.load_many(list(deal.games)))
            if placed is not None:
                outcomes[deal.games] = placed
    stored = stores.evaluations.change(
        evaluation_id, lambda current: advance(current, outcomes, now, closed)
        if current.status != "done" else None)
    made: list[str] = []
    if stored is not None and account is not None and not closed:
        made = _create_missing(stores, stored, account)
    if stored is not None and any(r.finished for r in stored.runs):
        tell(stores, stored.handle, [_progress(stored)])
    running = stored is not None and stored.status != "done"
    stores.schedule.release(lease, now + REVISIT_SECONDS if running else None)
    return made
