"""Judging one decision from what its seat could see: the expected round penalty of each
candidate action, over worlds drawn from the seat's knowledge, each played out to the
end of the round.

Why it cannot see a hidden card: the position is first *blinded* (:func:`blind`): every
card the seat could not see (the other seats' unknown cards and the stock) is replaced
by a fixed deal of the cards it has not seen, and the seed by a constant, before
anything else looks at it. The worlds are drawn from the seat's view and events alone
(:class:`service.research.Knowledge`), with an RNG seeded by public facts (the version,
the seat, the settings). So two games that differ only in cards the seat could not see
get the same verdict, bit for bit (``tests/analysis/test_judge.py`` checks it).

Why every candidate meets the same worlds: the difference between two candidates is
what is judged, and common random numbers take the luck of the draw out of it (the same
reason duplicate deals do for bots). Why the round's end and not the game's: a
decision's consequences for its seat are that round's penalty (the next round is dealt
afresh), and a playout to the round's end is exact about it under the policy.

A final turn's discard is judged exactly (:mod:`.final_turn`): nothing hidden can
change its outcome.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from service.bots.base import Bot
from service.bots.playout import STATE_POLICIES, play_out
from service.bots.registry import make_bot
from service.bots.strong_state import StrongPlayout
from service.core.cards import card_name, parse_card
from service.core.shapes import Action
from service.engine import GameState, view
from service.engine.legal import legal_actions
from service.engine.seats import actor_of
from service.engine.state import DRAW, FINAL_DISCARD, FINAL_DRAW
from service.research.knowledge import Knowledge
from service.research.worlds import deal, in_state, sample_worlds
from service.solver import GAME_STEP_BUDGET, analyze

from .final_turn import final_discard_scores
from .luck import exact_luck, sampled_luck

if TYPE_CHECKING:
    from .budget import StepBudget

__all__ = [
    "DEFAULT",
    "GREEDY",
    "JUDGEMENTS",
    "MARGIN",
    "QUICK",
    "SETTINGS",
    "THRESHOLDS",
    "Settings",
    "Verdict",
    "accuracy",
    "blind",
    "forced",
    "judge",
    "judgement",
    "key_of",
]

#: Regret (points of expected round penalty) from which a decision is an inaccuracy, a
#: mistake, a blunder: a fifth, a half and a whole of a face card's 10 points.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}
#: Every judgement, from the mildest; a decision below them all has none (``None``).
JUDGEMENTS = tuple(THRESHOLDS)
#: A decision is named by its regret less this many standard errors (of the worlds'
#: paired differences): a word only where the worlds agree on it. Measured on 244
#: decisions of 3 games, two sampling seeds named 25% of them differently by the plain
#: regret, 4% by this margin (the sampling noise of 4 worlds is several points).
MARGIN = 2.0
#: The judgements a first look must confirm on fresh worlds (``Settings.relook``): all of
#: them. Measured with ``make bench-analysis-verdicts``: without it, games of the policy
#: itself showed 5 blunders in 2,864 decisions, each the winner of noisy estimates on
#: four worlds. Inaccuracies too (once mistakes and blunders only): most judgements two
#: sampling seeds named differently were inaccuracies of a draw named on four worlds'
#: heavy-tailed differences and never confirmed (``make bench-analysis ARGS=--show``);
#: a second look on each cut them from 14 to 5 of 1,138 (at ``QUICK``: 10 to 5), and few
#: decisions are named at all, so it costs little (docs/performance.md#make-bench-analysis).
RELOOK = frozenset(JUDGEMENTS)
#: The regret at which a decision's accuracy has fallen to 1/e of 100 (see accuracy()).
ACCURACY_SCALE = 10.0


@dataclass(frozen=True, slots=True)
class Settings:
    """How hard to look: ``worlds`` drawn per decision, the ``candidates`` discards
    tried besides the one taken (the best by the penalty they keep), the ``policy`` bot
    that plays every seat in the playouts, the ``seed`` of the sampling, and ``relook``:
    a decision the first look names an inaccuracy, a mistake or a blunder is looked at
    again on ``relook`` times as many fresh worlds, and that look is its verdict (1: none).

    ``turns``: a playout stops once the seat has played that many turns after the
    decision's, and its score is read off its hand there by the solver
    (:func:`service.bots.playout.leaf_score`; 0: played to the round's end).
    ``lookahead``: with the ``strong`` policy, the work units of look-ahead each of the
    seat's own moves may spend (``strong``'s budget); the other seats play ``strong``
    without look-ahead (its card counting and defence, :mod:`service.bots.strong_state`).
    """

    worlds: int = 4
    candidates: int = 2
    policy: str = "strong"
    seed: str = "analysis/v1"
    relook: int = 4
    turns: int = 1
    lookahead: int = 4_000

    def to_dict(self) -> dict[str, Any]:
        return {"worlds": self.worlds, "candidates": self.candidates,
                "policy": self.policy, "seed": self.seed, "relook": self.relook,
                "turns": self.turns, "lookahead": self.lookahead}


#: The default setting of :func:`judge` and :func:`.game.analyse`.
DEFAULT = Settings()
#: A quick look: the default's playouts without the seat's look-ahead (``strong``'s card
#: counting and defence at every seat, greedy's choices), a fifth of its CPU; it names
#: the same judgement as the default on most decisions (``make bench-analysis``).
QUICK = replace(DEFAULT, lookahead=0)
#: The judge before ``strong`` played its playouts: ``greedy`` at every seat, to the
#: round's end (what ``make bench-analysis`` compares the default with).
GREEDY = replace(DEFAULT, policy="greedy", turns=0)
#: The settings a deployment may choose for its analysis workers (``ANALYSIS_SETTING``):
#: a small box may judge at ``quick``, each result says which it was judged at.
SETTINGS: Mapping[str, Settings] = MappingProxyType({"default": DEFAULT, "quick": QUICK})


@dataclass(frozen=True, slots=True)
class Verdict:
    """One decision judged: the action taken, the best candidate, the expected round
    penalty of each candidate looked at (``values``, by :func:`key_of`), the regret
    (taken minus best, 0 for a best move), its ``standard_error`` over the worlds, and
    the judgement of the regret less :data:`MARGIN` standard errors (``None`` below
    :data:`THRESHOLDS`). ``exact``: a final
    discard, judged without sampling. ``worlds``: the worlds its first look drew (0 when
    exact; fewer than the settings' when the analysis' step budget ran short)."""

    version: int
    seat: int
    action: dict[str, Any]
    best: dict[str, Any]
    regret: float
    judgement: str | None
    values: dict[str, float]
    exact: bool
    standard_error: float = 0.0
    #: the policy bot's move here (:func:`key_of`): the move the playouts assume
    policy: str = ""
    #: judged on a second look (``Settings.relook``)
    relooked: bool = False
    #: the round of the decision (0-based; what a seat's figures per round are summed by)
    round_index: int = 0
    worlds: int = 0
    #: a draw's luck (:mod:`.luck`; positive: the card saved points); ``None`` for any
    #: other decision, or a stock draw judged without the card drawn
    luck: float | None = None
    #: the seat had one move only (one draw source, or one distinct card to discard)
    forced: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "seat": self.seat, "action": self.action,
                "best": self.best, "regret": round(self.regret, 3),
                "judgement": self.judgement, "exact": self.exact,
                "standard_error": round(self.standard_error, 3), "policy": self.policy,
                "relooked": self.relooked, "worlds": self.worlds,
                "luck": None if self.luck is None else round(self.luck, 3),
                "forced": self.forced,
                "values": {k: round(v, 3) for k, v in self.values.items()}}


def judgement(regret: float) -> str | None:
    """The word for a regret: the worst threshold it reaches, or ``None`` below them all
    (the contract's ``null``)."""
    word = None
    for name, threshold in THRESHOLDS.items():
        if regret >= threshold:
            word = name
    return word


def accuracy(regret: float) -> float:
    """A decision's accuracy, 100 for a best move falling towards 0 with its regret:
    ``100 * exp(-regret / 10)`` (2 points cost 18 of it, 10 points 63), in the spirit
    of Lichess's accuracy, which falls the same way with the winning chances lost."""
    return 100.0 * math.exp(-max(0.0, regret) / ACCURACY_SCALE)


def key_of(action: Mapping[str, Any]) -> str:
    """A candidate's name: ``draw:stock``, ``discard:QH``, ``go_out`` (going out scores
    0 for the seat with any discard, so all go-outs are one candidate)."""
    kind = action["type"]
    if kind == "draw":
        return f"draw:{action['source']}"
    if kind == "discard":
        return f"discard:{card_name(parse_card(action['card']))}"
    if kind == "go_out":
        return "go_out"
    raise ValueError(f"a {kind!r} is not a decision the analysis judges")


def blind(state: GameState, knowledge: Knowledge) -> GameState:
    """``state`` with every card its seat could not see dealt again in a fixed order
    (the unseen cards sorted, to the other seats' unknown cards, then the stock) and a
    constant seed: the position as the seat knows it, with nothing of the true deal."""
    blinded = in_state(state, deal(knowledge, list(knowledge.unseen)), "blind")
    return replace(blinded, seed_salt="blind")


def _legal(state: GameState, seat: int) -> list[Action]:
    """The seat's legal moves (the engine's), read once a decision: in a discard phase
    they ask the solver which discards go out."""
    return legal_actions(state, seat, actor_of(state, seat))


def _candidates(state: GameState, seat: int, legal: Sequence[Action], keep: Sequence[str],
                n: int) -> dict[str, Action]:
    """The actions compared, among ``legal``: every draw; or the ``n`` discards that keep
    the lowest penalty (the solver's), those named in ``keep`` (the move taken, the
    policy's), and going out when it can."""
    if state.phase in (DRAW, FINAL_DRAW):
        return {key_of(a): a for a in legal if a["type"] == "draw"}
    out: dict[str, Action] = {}
    go_out = [a for a in legal if a["type"] == "go_out"]
    if go_out:
        out["go_out"] = go_out[0]
    ranked = analyze(state.hands[seat], state.wild_rank, state.rules,
                     steps=GAME_STEP_BUDGET).discards
    discards = {key_of(a): a for a in legal if a["type"] == "discard"}
    for card, _ in ranked:
        key = f"discard:{card_name(card)}"
        if len([k for k in out if k != "go_out"]) >= n:
            break
        if key in discards:
            out[key] = discards[key]
    out.update({k: discards[k] for k in keep if k in discards})
    return out


def _round_score(state: GameState, seat: int, first: Action, settings: Settings,
                 seed: str, budget: StepBudget | None, knowledge: Knowledge) -> int:
    """``seat``'s score for the round in play after ``first``, every later move of the
    round made by ``policy`` (one bot per seat, seeded by ``seed``); each action applied
    is charged to ``budget`` (:class:`.budget.StepsSpent` when it is spent)."""
    on_step = None if budget is None else budget.step
    policy, turns = settings.policy, settings.turns
    if policy == "strong":
        playout = _strong(knowledge, seat, settings, budget)
        return play_out(state, seat, first, playout, on_step, playout.made, turns)
    if policy in STATE_POLICIES:  # the same moves, without a view a step
        return play_out(state, seat, first, STATE_POLICIES[policy], on_step, turns=turns)
    bots: dict[int, Bot] = {}

    def move(state: GameState, s: int) -> Action:
        if s not in bots:
            bots[s] = make_bot(policy, seed=f"{seed}:{s}")
        return bots[s].choose(view(state, s, actor_of(state, s)))

    return play_out(state, seat, first, move, on_step, turns=turns)


def judge(state: GameState, seat: int, seat_view: Mapping[str, Any],
          seat_events: Sequence[Mapping[str, Any]], action: Mapping[str, Any],
          settings: Settings = DEFAULT, budget: StepBudget | None = None,
          drawn: int | None = None) -> Verdict:
    """The verdict on ``seat`` making ``action`` in ``state``, from the seat's view and
    its events since the game began (what it could see), and nothing else of ``state``
    than what that view shows. Every playout step is charged to ``budget``: it raises
    :class:`.budget.StepsSpent` when the steps run out (the decision is abandoned).
    ``drawn``: for a draw from the stock, the card the seat got (it saw it), which prices
    the draw's luck (:mod:`.luck`)."""
    if state.current_seat != seat or state.phase is None:
        raise ValueError("it is not this seat's turn")
    taken = key_of(action)
    knowledge = Knowledge.of(seat_view, seat_events)
    position = blind(state, knowledge)
    legal = _legal(position, seat)
    policy = key_of(_policy_move(position, seat, settings, knowledge))
    if position.phase == FINAL_DISCARD:
        exact = final_discard_scores(position, seat)
        scores = {f"discard:{card_name(c)}": [v] for c, v in exact.items()}
        actions: dict[str, Any] = {k: {"type": "discard", "card": k.split(":", 1)[1]}
                                   for k in scores}
    else:
        actions = _candidates(position, seat, legal, (taken, policy), settings.candidates)
        if taken not in actions:
            raise ValueError(f"{taken} is not a legal action here")
        scores = _scores(position, seat, knowledge, actions, settings, settings.worlds, "",
                         budget)
    worlds = 0 if position.phase == FINAL_DISCARD else len(scores[taken])
    luck = _luck(position, seat, knowledge, action, drawn, scores, settings, budget)
    values = {k: sum(v) / len(v) for k, v in scores.items()}
    best = min(values, key=lambda k: (values[k], k != taken, k))
    regret, error = _regret(scores, taken, best)
    word = judgement(max(0.0, regret - MARGIN * error))
    relooked = False
    if word in RELOOK and settings.relook > 1 and position.phase != FINAL_DISCARD:
        # a second look on fresh worlds: the best was picked on the first ones, and its
        # lead there is the winner of several noisy estimates (biased towards a verdict)
        pair = {k: actions[k] for k in dict.fromkeys((taken, best, policy))}
        again = _scores(position, seat, knowledge, pair, settings,
                        settings.worlds * settings.relook, ":again", budget)
        values.update({k: sum(v) / len(v) for k, v in again.items()})
        regret, error = _regret(again, taken, best)
        word = judgement(max(0.0, regret - MARGIN * error))
        relooked = True
    return Verdict(state.version, seat, dict(action), dict(actions[best]), regret, word, values,
                   position.phase == FINAL_DISCARD, error, policy, relooked,
                   state.round_index, worlds, luck, _single(legal))


def forced(state: GameState, seat: int) -> bool:
    """Whether the seat had a single move (by :func:`key_of`): one draw source, or one
    distinct card to discard and no going out. What an error rate leaves out."""
    return _single(_legal(state, seat))


def _single(legal: Sequence[Action]) -> bool:
    """Whether ``legal`` holds one turn move only (:func:`forced`)."""
    return len({key_of(a) for a in legal if a["type"] in ("draw", "discard", "go_out")}) <= 1


def _luck(position: GameState, seat: int, knowledge: Knowledge, action: Mapping[str, Any],
          drawn: int | None, scores: Mapping[str, list[int]], settings: Settings,
          budget: StepBudget | None) -> float | None:
    """The luck of a draw (:mod:`.luck`): 0 from the discard pile (a card the seat saw);
    from the stock, exact on a final turn, else on the first look's worlds with the card
    drawn put on top of the stock (the same seeds). ``None`` for any other decision, or
    when the card drawn is not given."""
    if action["type"] != "draw":
        return None
    if action["source"] == "discard":
        return 0.0
    if drawn is None:
        return None
    if position.phase == FINAL_DRAW:
        return exact_luck(position, seat, knowledge, drawn, budget)
    stock = scores["draw:stock"]
    with_drawn = _scores(position, seat, knowledge, {"draw:stock": {"type": "draw",
                                                                     "source": "stock"}},
                         settings, len(stock), "", budget, top=drawn)
    return sampled_luck(stock, with_drawn["draw:stock"])


def _strong(knowledge: Knowledge, seat: int, settings: Settings,
            budget: StepBudget | None = None) -> StrongPlayout:
    """``strong`` at every seat of a playout, knowing what the seat knew of the cards the
    others took from the pile (public: every seat saw them taken): the seat with
    ``settings.lookahead`` work units of look-ahead a move, the others with none. Each
    move's look-ahead work is charged to ``budget`` (:meth:`.budget.StepBudget.work`)."""
    work = None if budget is None else budget.work
    return StrongPlayout({s: k for s, k in enumerate(knowledge.known) if s != seat},
                         settings.lookahead, {s: 0 for s in range(len(knowledge.known))
                                              if s != seat}, work)


def _policy_move(state: GameState, seat: int, settings: Settings,
                 knowledge: Knowledge) -> Mapping[str, Any]:
    """The move the policy bot would make here (what the playouts assume of the seat)."""
    policy = settings.policy
    if policy == "strong":
        return _strong(knowledge, seat, settings)(state, seat)
    from_state = STATE_POLICIES.get(policy)
    if from_state is not None:
        return from_state(state, seat)
    return make_bot(policy, seed=f"policy:{state.version}").choose(
        view(state, seat, actor_of(state, seat)))


def _scores(position: GameState, seat: int, knowledge: Knowledge,
            actions: Mapping[str, Action], settings: Settings, worlds: int,
            tag: str, budget: StepBudget | None, top: int | None = None,
            ) -> dict[str, list[int]]:
    """Each action's round score in each of ``worlds`` worlds drawn from ``knowledge``
    (seeded by the settings, the version, the seat and ``tag``: public facts only);
    ``top``: the same worlds with that card put on top of the stock in each."""
    rng = random.Random(f"{settings.seed}:{position.version}:{seat}{tag}")
    drawn = sample_worlds(knowledge, worlds, rng, top)
    seeds = [f"{settings.seed}:{position.version}:{i}{tag}" for i in range(len(drawn))]
    return {key: [_round_score(in_state(position, world, seed), seat, body, settings,
                               seed, budget, knowledge)
                  for world, seed in zip(drawn, seeds, strict=True)]
            for key, body in actions.items()}


def _regret(scores: Mapping[str, list[int]], taken: str, best: str) -> tuple[float, float]:
    """The regret of ``taken`` against ``best`` (at least 0) and its standard error."""
    diffs = [a - b for a, b in zip(scores[taken], scores[best], strict=True)]
    return max(0.0, sum(diffs) / len(diffs)), _standard_error(diffs)


def _standard_error(differences: list[int]) -> float:
    """The standard error of the mean of the worlds' paired differences (0 with one)."""
    n = len(differences)
    if n < 2:
        return 0.0
    mean = sum(differences) / n
    return math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n)

