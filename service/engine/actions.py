"""Actions: parse a contract body once, then apply it to a state.

The three error kinds are checked in a fixed order, so the same action always
fails the same way: first the *shape* (:class:`InvalidActionError`, or
:class:`InvalidCardError` for bad notation), then whether the game is over or
it is the seat's turn (:class:`IllegalActionError` / :class:`NotYourTurnError`), then whether the actor
may move the seat now (its player, or the service for a bot, away, resigned or
timed-out seat: :func:`.seats.check_turn`), then whether the move is allowed in
this phase with this hand (:class:`IllegalActionError`). Nothing is changed unless
everything passes: ``apply`` builds a new state and returns it with the events it
produced, so ``apply`` is the whole move, who made it included.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from service.core.cards import card_name, card_names, parse_card
from service.core.errors import IllegalActionError, InvalidActionError, NotYourTurnError
from service.core.melds import meld_kinds
from service.solver import GAME_STEP_BUDGET, analyze

from .events import Event, EventLog
from .rounds import arrange_final, begin_turn, end_round
from .seats import (
    ACTORS,
    PLAYER,
    abort,
    acted,
    check_turn,
    claim_victory,
    come_back,
    played,
    resign,
    seat_kind,
)
from .state import (
    DISCARD,
    DRAW,
    FINAL_DISCARD,
    FINAL_DRAW,
    HUMAN,
    TURN_LIMIT,
    WENT_OUT,
    GameState,
    TableMeld,
    updated,
)

__all__ = ["Abort", "Action", "Back", "ClaimVictory", "Discard", "Draw", "GoOut", "Resign",
           "apply", "parse_action"]


@dataclass(frozen=True, slots=True)
class Draw:
    source: str  # "stock" or "discard"


@dataclass(frozen=True, slots=True)
class Discard:
    card: int


@dataclass(frozen=True, slots=True)
class GoOut:
    discard: int
    melds: tuple[tuple[int, ...], ...] | None  # None: use the solver's arrangement


@dataclass(frozen=True, slots=True)
class Resign:
    """Give the seat up: the stand-in bot plays it to the end (:mod:`.seats`)."""


@dataclass(frozen=True, slots=True)
class Back:
    """The owner of an away seat plays it again (:mod:`.seats`)."""


@dataclass(frozen=True, slots=True)
class Abort:
    """End the game with no result, before this seat's first turn (:mod:`.seats`)."""


@dataclass(frozen=True, slots=True)
class ClaimVictory:
    """The away seat ``against`` resigns (:mod:`.seats`)."""

    against: int


Action = Draw | Discard | GoOut | Resign | Back | Abort | ClaimVictory

_KEYS = {
    "resign": ({"type"}, set()),
    "back": ({"type"}, set()),
    "abort": ({"type"}, set()),
    "claim_victory": ({"type", "against"}, set()),
    "draw": ({"type", "source"}, set()),
    "discard": ({"type", "card"}, set()),
    "go_out": ({"type", "discard"}, {"melds"}),
}


def parse_action(body: object) -> Action:
    """Check the shape of an action body and parse its cards (the 422 errors)."""
    if not isinstance(body, Mapping):
        raise InvalidActionError('an action must be an object like {"type": "draw", …}')
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise InvalidActionError(
            f"unknown action type {kind!r}: use draw, discard, go_out, resign, back, abort "
            "or claim_victory",
            field="type",
        )
    required, optional = _KEYS[kind]
    missing = sorted(required - set(body))
    if missing:
        raise InvalidActionError(f"a {kind} action needs {missing[0]!r}", field=missing[0])
    extra = sorted(str(k) for k in set(body) - required - optional)
    if extra:
        raise InvalidActionError(f"a {kind} action has no field {extra[0]!r}", field=extra[0])
    if kind == "resign":
        return Resign()
    if kind == "back":
        return Back()
    if kind == "abort":
        return Abort()
    if kind == "claim_victory":
        against = body["against"]
        if isinstance(against, bool) or not isinstance(against, int):
            raise InvalidActionError("claim_victory 'against' is the number of the away seat",
                                     field="against")
        return ClaimVictory(against)
    if kind == "draw":
        source = body["source"]
        if source not in ("stock", "discard"):
            raise InvalidActionError(
                f"draw source must be 'stock' or 'discard', not {source!r}", field="source"
            )
        return Draw(source)
    if kind == "discard":
        return Discard(parse_card(body["card"]))
    discard = parse_card(body["discard"])
    melds = body.get("melds")
    if melds is None:
        return GoOut(discard, None)
    if not isinstance(melds, list | tuple) or not all(isinstance(m, list | tuple) for m in melds):
        raise InvalidActionError(
            "go_out 'melds' must be a list of melds, each a list of cards", field="melds"
        )
    return GoOut(discard, tuple(tuple(parse_card(c) for c in m) for m in melds))


def apply(state: GameState, seat: int, body: object,
          by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """Apply ``seat``'s action, made ``by`` its player or the service (:mod:`.seats`);
    return the new state (``version`` + 1) and its events. A turn move's event says
    who made it (``by``)."""
    action = parse_action(body)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise InvalidActionError(f"there is no seat {seat!r} in this game", field="seat")
    if by not in ACTORS:
        raise ValueError(f"an action is made by one of {ACTORS}, not {by!r}")
    if isinstance(action, Resign):  # any time, on turn or not
        return resign(state, seat, by)
    if isinstance(action, Back):
        return come_back(state, seat, by)
    if isinstance(action, Abort):
        return abort(state, seat, by)
    if isinstance(action, ClaimVictory):
        return claim_victory(state, seat, action.against, by)
    if state.finished:
        raise IllegalActionError("the game is finished")
    if by == PLAYER and seat_kind(state, seat) != HUMAN:
        check_turn(state, seat, by)  # a resigned or away seat's player first hears that
    if seat != state.current_seat:
        raise NotYourTurnError(
            f"it is seat {state.current_seat}'s turn, not seat {seat}'s",
            current_seat=state.current_seat,
        )
    check_turn(state, seat, by)
    log = EventLog(state.event_seq)
    if isinstance(action, Draw):
        new = _draw(state, seat, action, by, log)
    elif isinstance(action, Discard):
        new = _discard(state, seat, action.card, by, log)
    else:
        new = _go_out(state, seat, action, by, log)
    if by == PLAYER:
        new = acted(new, seat)
    new = played(new, seat)
    return updated(new, version=state.version + 1, event_seq=log.seq), log.events


def _remove(hand: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _with_hand(state: GameState, seat: int, hand: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    hands = list(state.hands)
    hands[seat] = hand
    return tuple(hands)


def _draw(state: GameState, seat: int, action: Draw, by: str, log: EventLog) -> GameState:
    if state.phase not in (DRAW, FINAL_DRAW):
        raise IllegalActionError("you have drawn already: discard or go out")
    hand = list(state.hands[seat])
    if action.source == "stock":
        card = state.stock[0]
        insort(hand, card)
        log.add("draw", {"seat": seat, "by": by, "source": "stock"},
                {seat: {"card": card_name(card)}})
        stock, discard = state.stock[1:], state.discard
    else:
        if not state.discard:
            raise IllegalActionError("the discard pile is empty: draw from the stock")
        card = state.discard[-1]
        insort(hand, card)
        log.add("draw", {"seat": seat, "by": by, "source": "discard", "card": card_name(card)})
        stock, discard = state.stock, state.discard[:-1]
    phase = DISCARD if state.phase == DRAW else FINAL_DISCARD
    return updated(state, stock=stock, discard=discard,
                  hands=_with_hand(state, seat, tuple(hand)), phase=phase)


def _discard(state: GameState, seat: int, card: int, by: str, log: EventLog) -> GameState:
    if state.phase not in (DISCARD, FINAL_DISCARD):
        raise IllegalActionError("draw a card first")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalActionError(f"{card_name(card)} is not in your hand", card=card_name(card))
    state = updated(
        state,
        hands=_with_hand(state, seat, _remove(hand, card)),
        discard=(*state.discard, card),
        turns=state.turns + 1 if state.phase == DISCARD else state.turns,
    )
    log.add("discard", {"seat": seat, "by": by, "card": card_name(card)})
    nxt = state.next_seat(seat)
    if state.phase == DISCARD:
        limit = state.rules.turn_limit
        if limit is not None and state.turns >= limit * state.players:
            # every player had its turn_limit of turns and nobody went out
            return end_round(updated(state, current_seat=nxt), TURN_LIMIT, log)
        return begin_turn(state, nxt, DRAW, log)
    state = arrange_final(state, seat, log)
    if nxt == state.went_out:
        return end_round(state, WENT_OUT, log)
    return begin_turn(state, nxt, FINAL_DRAW, log)


def _go_out(state: GameState, seat: int, action: GoOut, by: str, log: EventLog) -> GameState:
    if state.phase == FINAL_DISCARD:
        raise IllegalActionError("a final turn cannot go out: discard a card")
    if state.phase != DISCARD:
        raise IllegalActionError("draw a card first")
    hand = state.hands[seat]
    card = action.discard
    if card not in hand:
        raise IllegalActionError(f"{card_name(card)} is not in your hand", card=card_name(card))
    if action.melds is None:
        arrangement = analyze(hand, state.wild_rank, state.rules, (), state.contract,
                              steps=GAME_STEP_BUDGET).go_out.get(card)
        if arrangement is None:
            raise IllegalActionError(
                f"discarding {card_name(card)} leaves cards that cannot all be melded"
                + (" meeting the round's contract" if state.contract else ""),
                card=card_name(card),
            )
        melds = tuple(tuple(m) for m in arrangement.melds)
    else:
        melds = action.melds
        _check_melds(state, _remove(hand, card), melds)
    state = updated(
        state,
        hands=_with_hand(state, seat, ()),
        discard=(*state.discard, card),
        table=tuple(TableMeld(seat, m) for m in melds),
        went_out=seat,
        arranged=(seat,),
    )
    log.add(
        "went_out",
        {"seat": seat, "by": by, "discard": card_name(card),
         "melds": [card_names(m) for m in melds]},
    )
    return begin_turn(state, state.next_seat(seat), FINAL_DRAW, log)


def _check_melds(
    state: GameState, rest: tuple[int, ...], melds: tuple[tuple[int, ...], ...]
) -> None:
    """Explicit melds must use exactly the rest of the hand, each valid, meeting the contract."""
    if Counter(c for m in melds for c in m) != Counter(rest):
        raise IllegalActionError(
            "the melds must use exactly the cards of your hand except the discard"
        )
    only_sets = only_runs = either = 0
    for meld in melds:
        kinds = meld_kinds(list(meld), state.wild_rank, state.rules)
        if not kinds:
            raise IllegalActionError(
                f"{' '.join(card_names(meld))} is not a valid meld", meld=card_names(meld)
            )
        if kinds == {"set"}:
            only_sets += 1
        elif kinds == {"run"}:
            only_runs += 1
        else:
            either += 1
    if not contract_met(state.contract, only_sets, only_runs, either):
        sets, runs = state.contract or (0, 0)
        raise IllegalActionError(
            f"this round's contract needs at least {sets} set(s) and {runs} run(s)"
        )


def contract_met(
    contract: tuple[int, int] | None, only_sets: int, only_runs: int, either: int
) -> bool:
    """Can the melds count as ≥ sets and ≥ runs? A meld valid both ways counts as one of them."""
    if contract is None:
        return True
    sets, runs = contract
    return max(0, sets - only_sets) + max(0, runs - only_runs) <= either
