"""How much of the move workers' time one client may hold: its unfinished games with bot
seats, each weighted by the most work its bots can ask for, within a cap
(``BOT_GAMES_PER_ADDRESS``).

Why the worst case, counted in work: a game's cost to the move workers is the decisions
its bot seats make times what each may spend, and the rules, not the bots, bound how many
decisions a game can have. Hand sizes are a poor proxy: one round of 13 cards with a
``turn_limit`` of 100 and a contract nobody meets lets eight ``expert`` seats make 1,616
decisions of up to 150,000 work units each. So a game's weight is

    sum over its bot seats of (decisions a seat may make) x (units one decision may spend)

where a seat may make two decisions (a draw, then a discard or going out) in each of its
at most ``turn_limit + 1`` turns a round (its turns before the limit ends the round, and a
final turn), over every round; and a decision may spend its bot's look-ahead budget
(:data:`BOT_BUDGET`: ``strong`` 16,000 units, ``expert`` 150,000) plus the analyses every
decision needs (:func:`required_units`). A work unit is a solver step, about 2 us of CPU
(``service/bots/budget.py``; ``make bench-decisions``).

The cap is counted in *standard games*: the weight of one ``greedy`` seat in the classic
eleven rounds at the default ``turn_limit`` (:data:`STANDARD_WORK` units). With the
default of 160, a client may hold, say, 160 games against one ``greedy`` seat, 4 games
of four ``strong`` seats, or two against one ``expert`` (76 each); a game heavier than
the cap alone is refused saying so. Games of players only, and their turn clocks, weigh
nothing here (a time-out costs the workers one stand-in move per turn a player let run
out).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from service.bots import EXPERT_BUDGET, STRONG_BUDGET
from service.core.rules import MAX_TURN_LIMIT, Rules
from service.storage import HEAVY, LIGHT, Stores

from .errors import TooManyBotGamesError

__all__ = ["BOT_BUDGET", "REQUIRED_UNITS", "STANDARD_WORK", "LoadLimit", "admit_bot_game",
           "bot_game_weight", "decisions_per_seat", "lane_of", "required_units"]

#: The look-ahead budget of one decision of each reference bot, in work units (the bots'
#: own ``STRONG_BUDGET`` and ``EXPERT_BUDGET``; the others look nothing ahead).
BOT_BUDGET = {"random": 0, "simple": 0, "greedy": 0, "strong": STRONG_BUDGET,
              "expert": EXPERT_BUDGET}
#: The analyses every decision needs (the seat's hand, and with the pile's top card), in
#: work units: ``greedy``'s costliest decision spent 1,161 units in 8-seat games of
#: 13-card hands, and 10,847 where jokers, lay-offs or 14-card hands multiply the
#: arrangements (``make bench-decisions``' worst case); ``random`` needs none.
REQUIRED_UNITS = 2_000
REQUIRED_UNITS_HARD = 12_000
#: Work units of one standard game: one ``greedy`` seat, classic's eleven rounds, the
#: default turn limit of 30.
STANDARD_WORK = 2 * 11 * (30 + 1) * REQUIRED_UNITS
#: How long after a client's last bot game started its entry is kept (a game's lifetime).
LOAD_TTL_SECONDS = 7 * 24 * 3600
#: How long an admitted game may take to be stored before its room is given back.
CREATING_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class LoadLimit:
    """The client that starts a game (a hash of its address) and the weight it may hold."""

    client: str
    cap: float

    @classmethod
    def of_address(cls, address: str, cap: float) -> LoadLimit:
        """A client by its address (stored hashed, so the index holds no addresses)."""
        return cls(hashlib.sha256(address.encode()).hexdigest()[:24], cap)


def lane_of(bots: Sequence[str | None]) -> str:
    """The schedule lane of a game with these bot seats: :data:`~service.storage.HEAVY`
    when one of them searches (a decision of tens to hundreds of milliseconds), so that
    no light visit (a ``greedy`` reply, a clock) waits behind one of its decisions."""
    return HEAVY if any(bot is not None and BOT_BUDGET[bot] > 0 for bot in bots) else LIGHT


def required_units(rules: Rules) -> int:
    """What the analyses a decision cannot do without may cost under ``rules``: more
    where hands pass 13 cards, jokers are many or cards are laid off onto table melds."""
    return REQUIRED_UNITS_HARD if rules.hard_to_solve else REQUIRED_UNITS


def decisions_per_seat(rules: Rules) -> int:
    """The most decisions one seat can make in a game under ``rules``: two a turn, at most
    ``turn_limit + 1`` turns a round (a game with a service-played seat has a turn limit:
    :func:`service.engine.game.check_ends`), every round."""
    limit = rules.turn_limit if rules.turn_limit is not None else MAX_TURN_LIMIT
    return 2 * (limit + 1) * len(rules.hand_sizes)


def bot_game_weight(rules: Rules, bots: Sequence[str | None]) -> float:
    """The most work a game with these bot seats can ask of the move workers, in standard
    games (0: no bot seat)."""
    need = required_units(rules)
    per_decision = sum((0 if bot == "random" else need) + BOT_BUDGET[bot]
                       for bot in bots if bot is not None)
    if not any(bot is not None for bot in bots):
        return 0.0
    # random decides without the solver: a token unit a decision keeps it above 0
    per_decision = max(per_decision, 1)
    return per_decision * decisions_per_seat(rules) / STANDARD_WORK


def admit_bot_game(stores: Stores, limit: LoadLimit, game_id: str, weight: float,
                   now: float) -> None:
    """Count ``game_id`` (about to be created) against ``limit``'s client, or refuse it
    (:class:`TooManyBotGamesError`) when the client's unfinished bot games and this one
    would weigh more than the cap. Games of the client that are over are forgotten in
    the same step: finished, or gone (expired, or never stored: its creation failed)
    :data:`CREATING_SECONDS` after they were admitted; a game admitted just now but not
    stored yet is still held, so creations racing from one client cannot each find the
    others gone and all pass the cap."""
    if weight <= 0:
        return
    held = stores.loads.held(limit.client)
    records = stores.games.load_many(list(held))
    over = [g for (g, (_, at)), r in zip(held.items(), records, strict=True)
            if (r is None and now - at > CREATING_SECONDS)
            or (r is not None and r.state.finished)]
    total = stores.loads.admit(limit.client, game_id, weight, limit.cap, over,
                               LOAD_TTL_SECONDS, now)
    if total is not None:
        why = (f"this game's bot seats alone weigh {weight:g}, more than the {limit.cap:g} one "
               "client may hold: seat fewer or cheaper bots" if weight > limit.cap else
               f"your unfinished games with bot seats weigh {total:g} of the {limit.cap:g} "
               f"one client may hold, and this one {weight:g}: wait for one to end")
        raise TooManyBotGamesError(why, held=round(total, 3), weight=round(weight, 3),
                                   cap=limit.cap)
