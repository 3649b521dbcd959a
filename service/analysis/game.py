"""A finished game's analysis: every decision of every seat judged (:func:`.judge.judge`)
from its record, and each seat summed up.

Why from the record alone: the record is what a player keeps and what
``python -m service.verify`` checks, so an analysis anyone can reproduce starts from it.
The game is replayed in the engine (:mod:`service.verify.replay`) and, at each draw,
discard and go-out, the seat's own view and its own share of the events so far are what
the judge is given. The same record and settings give the same analysis.

Per seat: ``accuracy`` (the mean of its decisions' accuracies, :func:`.judge.accuracy`),
``expected_loss`` (the sum of its regrets: the points its decisions cost on average
against the best candidates), and how many decisions were inaccuracies, mistakes and
blunders (:data:`.judge.THRESHOLDS`), and ``luck`` (:func:`luck`): the points the cards
and the other seats' play saved it, against what it could expect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from service.engine import GameState, opening_events, view
from service.verify.replay import initial_state, replay_steps

from .judge import DEFAULT, THRESHOLDS, Settings, Verdict, accuracy, judge, key_of

__all__ = ["DECISIONS", "RELOOK_SHARE", "Decision", "analyse", "decisions_of", "luck", "summary"]

#: The action types judged: the turn moves a seat chooses.
DECISIONS = frozenset({"draw", "discard", "go_out"})
#: At most this share of a game's decisions get a second look (``Settings.relook``); the
#: rest keep their first look's verdict. What bounds a game's cost with the first looks
#: (``service/play/analyses.py``); ``random``'s play ends at 5.8 mistakes and blunders in
#: 100 decisions, the other reference bots' under 0.2 (``make bench-analysis-verdicts``).
RELOOK_SHARE = 0.1
#: The summary's count of each judgement (by its plural).
PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


@dataclass(frozen=True, slots=True)
class Decision:
    """A turn move of the record with what its seat could see before it."""

    state: GameState
    seat: int
    action: Mapping[str, Any]
    seat_view: Mapping[str, Any]
    seat_events: list[dict[str, Any]]


def decisions_of(record: Mapping[str, Any]) -> Iterator[Decision]:
    """Each draw, discard and go-out of ``record`` in order, with the seat's view before
    it and the seat's events since the game began (each seat's share kept as the replay
    goes, so a seat never gets another's private fields)."""
    state = initial_state(record)
    shares: list[list[dict[str, Any]]] = [[] for _ in range(state.players)]

    def hear(events: list[Any]) -> None:
        for e in events:
            for s, share in enumerate(shares):
                share.append(e.for_seat(s))

    hear(opening_events(state))
    for step in replay_steps(record, state):
        action, seat = step.action, step.action["seat"]
        if action["type"] in DECISIONS:
            body = {k: v for k, v in action.items() if k not in ("seat", "by")}
            yield Decision(step.before, seat, body, view(step.before, seat, action["by"]),
                           list(shares[seat]))
        hear(step.events)


def luck(verdicts: list[Verdict], record: Mapping[str, Any], seat: int) -> float:
    """The penalty points ``seat`` was expected to score less those it scored, summed
    over the scored rounds it made a decision in (positive: luckier than expected).

    A round's expectation is the expected round penalty of the action the seat took at its
    first decision of the round (the worlds drawn from what it saw of the deal, played
    out, the policy playing on), plus what each of its later decisions of the round cost
    against the policy's move there (the value of the move taken less the policy's: its
    own play, not luck; not the regret, which is against the best of noisy estimates and
    so biased upwards)."""
    scored = record["rounds"]
    total = 0.0
    seen: set[int] = set()
    for verdict in verdicts:
        r = verdict.round_index
        if verdict.seat != seat or r >= len(scored) or "results" not in scored[r]:
            continue
        taken = verdict.values[key_of(verdict.action)]
        if r not in seen:
            seen.add(r)
            total += taken - scored[r]["results"][seat]["score"]
        else:
            total += taken - verdict.values[verdict.policy]
    return total


def summary(verdicts: list[Verdict], record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each seat of ``record``: its accuracy, expected loss, counts of judgements and luck."""
    out = []
    for seat in range(len(record["players"])):
        own = [v for v in verdicts if v.seat == seat]
        row: dict[str, Any] = {
            "seat": seat, "decisions": len(own),
            "accuracy": round(sum(accuracy(v.regret) for v in own) / len(own), 1) if own
            else None,
            "expected_loss": round(sum(v.regret for v in own), 2),
        }
        for name in THRESHOLDS:
            row[PLURAL[name]] = sum(
                v.judgement == name for v in own)
        row["luck"] = round(luck(verdicts, record, seat), 2)
        out.append(row)
    return out


def analyse(record: Mapping[str, Any], settings: Settings = DEFAULT,
            progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The analysis of a finished game's ``record``: the settings, each seat's summary
    and every decision's verdict. ``progress(done, total)`` is called after each."""
    if record.get("finish_reason") == "aborted":
        raise ValueError("an aborted game has no result to analyse")
    total = sum(a["type"] in DECISIONS for a in record["actions"])
    verdicts = []
    second_looks = int(total * RELOOK_SHARE)
    for d in decisions_of(record):
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action,
                        settings if second_looks > 0 else replace(settings, relook=1))
        second_looks -= verdict.relooked
        verdicts.append(verdict)
        if progress is not None:
            progress(len(verdicts), total)
    return {"settings": settings.to_dict(),
            "seats": summary(verdicts, record),
            "decisions": [v.to_dict() for v in verdicts]}
