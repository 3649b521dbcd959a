"""``analyze``, ``solve`` and the going-out test: one search per call, nothing kept.

Each call builds its own search (``search.GroupSearch``) with its own memo and step
budget, and drops it on return; no state outlives a call, so calls are independent
of each other and safe across threads.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.core.errors import InvalidInputError
from service.core.melds import SCALE, Context, context, split
from service.core.rules import Rules

from .arrangement import Analysis, Arrangement
from .budget import STEP_BUDGET, Budget
from .going_out import GoingOutSearch
from .search import GroupSearch, State
from .table import read_table

__all__ = ["MAX_HAND", "MAX_TABLE_MELDS", "analyze", "go_out_cards", "solve"]

#: The largest hand the solver accepts (``POST /v1/solve``'s limit).
MAX_HAND = 30
#: The most table melds a lay-off search accepts from outside a game (``POST /v1/solve``).
MAX_TABLE_MELDS = 12


def _check(hand: Sequence[int]) -> None:
    if len(hand) > MAX_HAND:
        raise InvalidInputError(f"a hand has at most {MAX_HAND} cards, not {len(hand)}")


def _search(
    ctx: Context,
    hand: Sequence[int],
    table: Sequence[Sequence[int]],
    contract: tuple[int, int] | None,
    budget: Budget,
) -> tuple[GroupSearch, State]:
    naturals, wild_rank_cards, jokers = split(hand, ctx.wild_rank)
    search = GroupSearch(ctx, naturals, wild_rank_cards, jokers, read_table(ctx, table), contract, budget)
    return search, search.start(naturals)


def solve(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    table: Sequence[Sequence[int]] = (),
    *,
    steps: int | None = STEP_BUDGET,
) -> Arrangement:
    """The optimal arrangement of ``hand`` (lay-offs onto ``table`` when ``rules.lay_off``).

    Raises ``SolverBudgetExceeded`` past ``steps`` search steps (``None``: unbounded,
    for measurements only; the game flow passes ``GAME_STEP_BUDGET``, see budget.py).
    """
    _check(hand)
    search, state = _search(context(rules, wild_rank), hand, table, None, Budget(steps))
    search.best(state)
    return search.arrangement(state)


def analyze(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    table: Sequence[Sequence[int]] = (),
    contract: tuple[int, int] | None = None,
    *,
    steps: int | None = STEP_BUDGET,
    budget: Budget | None = None,
) -> Analysis:
    """The best arrangement, the go-out discards and the penalty after each discard.

    One search gives the cost of the hand and of the hand without each card. With a
    contract, a second, contract-aware search of the hand does the same for the
    go-out candidates. Raises ``SolverBudgetExceeded`` past ``steps`` search steps (all searches of
    the call together). A caller that needs to know the work done passes its own
    ``budget`` (whose limit then replaces ``steps``) and reads ``budget.steps`` after:
    the bots charge each decision the steps of its analyses (``service/bots/budget.py``).
    """
    _check(hand)
    ctx = context(rules, wild_rank)
    budget = Budget(steps) if budget is None else budget
    search, state = _search(ctx, hand, table, None, budget)
    result = search.best(state)
    best = search.arrangement(state)
    # costs are penalty * SCALE + deadwood cards (see melds.Context): 0 = all melded
    costs = {card: search.cost_without(result, card) for card in set(hand)}
    discards = tuple(sorted(((c, v // SCALE) for c, v in costs.items()), key=lambda cv: (cv[1], cv[0])))
    go_out: dict[int, Arrangement] = {}
    candidates = sorted(c for c, v in costs.items() if v == 0)
    if contract is not None and candidates:
        # one contract-aware search of the whole hand gives, per card, whether the
        # rest meets the contract entirely melded (its per-card costs)
        search, state = _search(ctx, hand, table, contract, budget)
        result = search.best(state)
        candidates = [c for c in candidates if search.cost_without(result, c) == 0]
    for card in candidates:
        go_out[card] = search.arrangement(state, without=card)
    return Analysis(best=best, go_out=go_out, discards=discards)


def go_out_cards(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    contract: tuple[int, int] | None = None,
    *,
    steps: int | None = STEP_BUDGET,
) -> frozenset[int]:
    """The cards whose discard leaves the rest of ``hand`` (after drawing) entirely
    melded, meeting ``contract``: the going-out test of a turn.

    The same answer as ``analyze(...).go_out``, from the search bounded at zero
    deadwood (``going_out``): no arrangement is built and no cost above 0 searched.
    """
    _check(hand)
    ctx = context(rules, wild_rank)
    naturals, wild_rank_cards, jokers = split(hand, ctx.wild_rank)
    search = GoingOutSearch(ctx, naturals, wild_rank_cards, jokers, [], contract, Budget(steps))
    fields = search.zeros(search.start(naturals))
    return frozenset(c for c in set(hand) if fields >> search.field_of(c) & 1)
