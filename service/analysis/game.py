"""A finished game's analysis: every decision its seats' players made judged
(:func:`.judge.judge`) from its record, and each seat summed up.

Why from the record alone: the record is what a player keeps and what
``python -m service.verify`` checks, so an analysis anyone can reproduce starts from it.
The game is replayed in the engine (:mod:`service.verify.replay`) and, at each draw,
discard and go-out, the seat's own view and its own share of the events so far are what
the judge is given. The same record and settings give the same analysis.

Whose moves: the record says who made each (``by``): the seat's ``player``, or the
``service``. A seat's player is its human, or, for a bot seat, the reference bot the
service plays there (its moves are ``by: service``, and they are its own decisions). The
service's other moves are made *for* a human seat: the stand-in (``greedy``) of an away
or resigned seat, or the rest of a turn whose clock ran out. Those are not the player's
decisions, so they are not judged (:func:`own_decision`): judging them cost a resigned
seat's analysis its whole game and showed the stand-in's play as the player's. Each seat
counts them as ``service_moves``.

Per seat: ``accuracy`` (the mean of its judged decisions' accuracies,
:func:`.judge.accuracy`), ``expected_loss`` (the sum of their regrets: the points they
cost on average against the best candidates), how many were inaccuracies, mistakes and
blunders (:data:`.judge.THRESHOLDS`), ``error_rate`` (the expected loss per decision
that was not forced, as backgammon's analysers rate play), ``luck`` (the sum of its
draws' luck, :mod:`.luck`: the points the cards it drew saved it) and ``adjusted_total``
(its game total with that luck taken out: ``total + luck``), and each round's score with
the same figures (``rounds``). ``unjudged``: its decisions the step budget left
unjudged (:mod:`.budget`): they count nowhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict

from service.core.cards import card_name, parse_card
from service.engine import GameState, opening_events, view
from service.engine.seats import PLAYER
from service.engine.serialize import rules_from_json
from service.engine.state import FINAL_DISCARD
from service.verify.replay import initial_state, replay_steps

from .budget import DECISION_STEPS, RELOOK_SHARE, StepBudget, StepsSpent, step_weight
from .judge import DEFAULT, THRESHOLDS, Settings, Verdict, accuracy, judge

__all__ = ["DECISIONS", "RELOOK_SHARE", "Decision", "Position", "analyse", "decisions_of",
           "own_decision", "summary"]

#: The action types judged: the turn moves a seat chooses.
DECISIONS = frozenset({"draw", "discard", "go_out"})
#: The summary's count of each judgement (by its plural).
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


@dataclass(frozen=True, slots=True)
class Decision:
    """A turn move of the record with what its seat could see before it, and who made
    it (``by``, as the record says)."""

    state: GameState
    seat: int
    action: Mapping[str, Any]
    seat_view: Mapping[str, Any]
    seat_events: list[dict[str, Any]]
    by: str = PLAYER
    #: for a draw from the stock, the card it gave the seat (the seat saw it); else None
    drawn: int | None = None


def own_decision(record: Mapping[str, Any], action: Mapping[str, Any]) -> bool:
    """Whether a turn move of ``record`` is its seat's player's decision: made by the
    player (``by: player``), or at a bot seat, whose bot is its player (a bot seat is one
    from the start to the end). Not a move the service made for a human seat."""
    return action["by"] == PLAYER or record["players"][action["seat"]].get("bot") is not None


def decisions_of(record: Mapping[str, Any], own_only: bool = False) -> Iterator[Decision]:
    """Each draw, discard and go-out of ``record`` in order (``own_only``: only its seats'
    players' own, :func:`own_decision`), with the seat's view before it and the seat's
    events since the game began (each seat's share kept as the replay goes, so a seat
    never gets another's private fields)."""
    state = initial_state(record)
    shares: list[list[dict[str, Any]]] = [[] for _ in range(state.players)]

    def hear(events: list[Any]) -> None:
        for e in events:
            for s, share in enumerate(shares):
                share.append(e.for_seat(s))

    hear(opening_events(state))
    for step in replay_steps(record, state):
        action, seat = step.action, step.action["seat"]
        if action["type"] in DECISIONS and (not own_only or own_decision(record, action)):
            body = {k: v for k, v in action.items() if k not in ("seat", "by")}
            yield Decision(step.before, seat, body, view(step.before, seat, action["by"]),
                           list(shares[seat]), action["by"], _drawn(step.events, seat))
        hear(step.events)


def _drawn(events: list[Any], seat: int) -> int | None:
    """The card ``seat`` drew from the stock in ``events`` (its own share shows it)."""
    for e in events:
        body = e.for_seat(seat)
        if body["type"] == "draw" and body["source"] == "stock" and body["seat"] == seat:
            return parse_card(body["card"])
    return None


class Position(TypedDict):
    """A decision's position as its seat saw it (the analysis' ``position``, a puzzle's)."""

    round: int
    hand_size: int
    wild_rank: str | None
    phase: str
    hand: list[str]
    discard_top: str | None
    stock_count: int


class Figures(TypedDict):
    """A seat's figures over some of its judged decisions (:func:`_figures`)."""

    decisions: int
    accuracy: float | None
    expected_loss: float
    error_rate: float | None
    luck: float


def _position_of(d: Decision) -> Position:
    """What the seat saw before the decision, as a client shows it as a puzzle: the round
    (from 1), its hand size and wild rank, the phase, the seat's hand, the discard pile's
    top card and the stock's size (card names as everywhere)."""
    rnd, you = d.seat_view["round"], d.seat_view["you"]
    return {"round": rnd["number"], "hand_size": rnd["hand_size"],
            "wild_rank": rnd["wild_rank"], "phase": rnd["phase"], "hand": list(you["hand"]),
            "discard_top": rnd["discard_top"], "stock_count": rnd["stock_count"]}


def _figures(own: list[Verdict]) -> Figures:
    """The figures of a seat's judged decisions (of a game, or of a round)."""
    free = [v for v in own if not v.forced]
    return {
        "decisions": len(own),
        "accuracy": round(sum(accuracy(v.regret) for v in own) / len(own), 1) if own
        else None,
        "expected_loss": round(sum(v.regret for v in own), 2),
        "error_rate": round(sum(v.regret for v in free) / len(free), 3) if free else None,
        "luck": round(sum(v.luck for v in own if v.luck is not None), 2),
    }


def summary(verdicts: list[Verdict], record: Mapping[str, Any],
            unjudged: Mapping[int, list[int]] | None = None) -> list[dict[str, Any]]:
    """Each seat of ``record``: its judged decisions' figures (:func:`_figures`), its
    game total and that total with its luck taken out, the same figures per round with
    the round's score; the service's moves made for it; and its decisions the step
    budget left unjudged (``unjudged``: their rounds, by seat)."""
    unjudged = unjudged or {}
    service_moves = [0] * len(record["players"])
    for action in record["actions"]:
        if action["type"] in DECISIONS and not own_decision(record, action):
            service_moves[action["seat"]] += 1
    out = []
    for seat in range(len(record["players"])):
        own = [v for v in verdicts if v.seat == seat]
        row: dict[str, Any] = {"seat": seat, **_figures(own)}
        row["forced"] = sum(v.forced for v in own)
        for name in THRESHOLDS:
            row[PLURAL[name]] = sum(v.judgement == name for v in own)
        total = record["totals"][seat]
        row["total"] = total
        # luck counts the points the draws saved: taken out, a lucky seat's total rises
        row["adjusted_total"] = round(total + row["luck"], 2)
        row["rounds"] = []
        for r, scored in enumerate(record["rounds"]):
            results = scored.get("results")
            row["rounds"].append({
                "round": scored["number"],
                "score": None if results is None else results[seat]["score"],
                **_figures([v for v in own if v.round_index == r])})
        row["unjudged"] = len(unjudged.get(seat, []))
        row["service_moves"] = service_moves[seat]
        out.append(row)
    return out


def analyse(record: Mapping[str, Any], settings: Settings = DEFAULT,
            progress: Callable[[int, int], None] | None = None,
            steps: int | None = None) -> dict[str, Any]:
    """The analysis of a finished game's ``record``: the settings, each seat's summary,
    every judged decision's verdict (with who made it, ``by``) and the steps spent.
    ``steps`` bounds the engine steps it may take (:mod:`.budget`; ``None``: no bound).
    ``progress(done, total)`` is called after each of the players' decisions."""
    if record.get("finish_reason") == "aborted":
        raise ValueError("an aborted game has no result to analyse")
    total = sum(a["type"] in DECISIONS and own_decision(record, a) for a in record["actions"])
    budget = StepBudget(steps, step_weight(rules_from_json(record["rules"])))
    rows = []
    verdicts = []
    unjudged: dict[int, list[int]] = {}
    second_looks = int(total * RELOOK_SHARE)
    for done, d in enumerate(decisions_of(record, own_only=True), start=1):
        verdict = _judged(d, settings, budget, total - done + 1, second_looks > 0)
        if verdict is None:
            unjudged.setdefault(d.seat, []).append(d.state.round_index)
        else:
            second_looks -= verdict.relooked
            verdicts.append(verdict)
            rows.append({**verdict.to_dict(), "by": d.by, "position": _position_of(d),
                         "drawn": None if d.drawn is None else card_name(d.drawn)})
        if progress is not None:
            progress(done, total)
    return {"settings": settings.to_dict(),
            "steps": {"budget": steps, "spent": budget.spent},
            "seats": summary(verdicts, record, unjudged),
            "decisions": rows}


def _judged(d: Decision, settings: Settings, budget: StepBudget, decisions_left: int,
            relook: bool) -> Verdict | None:
    """The verdict on ``d`` at the setting the budget fits (``relook``: second looks may
    still be given), or ``None`` when its steps do not fit (unjudged)."""
    fitted = budget.fit(settings, decisions_left, d.state.phase == FINAL_DISCARD)
    if fitted is None:
        return None
    try:
        budget.charge(DECISION_STEPS)
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action,
                        fitted if relook else replace(fitted, relook=1), budget, d.drawn)
    except StepsSpent:
        return None
    if not verdict.exact:
        budget.judged(fitted)
    return verdict
