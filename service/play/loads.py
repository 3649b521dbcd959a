"""How much of the move workers' time one client may hold: its unfinished games with bot
seats, each weighted by what its bots cost, within a cap (``BOT_GAMES_PER_ADDRESS``).

Why a cap on concurrent games, weighted: the move workers share their time fairly
between games, one move at a time (:mod:`.moves`), so a client with many bot games at
once takes that many shares of the workers from everyone else. The weight of a game is
what its bots ask of the workers relative to one ``greedy`` seat in the standard eleven
rounds: each bot seat's cost (:data:`BOT_COST`: ``strong`` searches about four times as
long per decision as ``greedy``, within its budget, and ``expert`` four times as long as
``strong``) times the cards its rounds deal (the sum of the hand sizes, 88 for rounds
of 3 to 13). With the default cap of 32, a client may run, say, 32 games against one
``greedy`` seat, 8 against one ``strong``, 2 against one ``expert``, or 2 games of four
``strong`` seats at once; one more is ``429 too_many_bot_games`` until one of them
ends. A standard game of three or more ``expert`` seats weighs more than the cap alone:
the error says so, and an operator who wants them raises the cap. Games of players only, and their turn clocks, weigh nothing here (a
time-out costs the workers one stand-in move per turn a player let run out).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from service.core.rules import Rules
from service.storage import Stores

from .errors import TooManyBotGamesError

__all__ = ["BOT_COST", "STANDARD_CARDS", "LoadLimit", "admit_bot_game", "bot_game_weight"]

#: What one decision of each bot costs the move workers, relative to ``greedy``'s.
BOT_COST = {"random": 0.25, "simple": 1.0, "greedy": 1.0, "strong": 4.0, "expert": 16.0}
#: Cards dealt to one seat over the standard eleven rounds (3 + 4 + … + 13).
STANDARD_CARDS = 88
#: How long after a client's last bot game started its entry is kept (a game's lifetime).
LOAD_TTL_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True, slots=True)
class LoadLimit:
    """The client that starts a game (a hash of its address) and the weight it may hold."""

    client: str
    cap: float

    @classmethod
    def of_address(cls, address: str, cap: float) -> LoadLimit:
        """A client by its address (stored hashed, so the index holds no addresses)."""
        return cls(hashlib.sha256(address.encode()).hexdigest()[:24], cap)


def bot_game_weight(rules: Rules, bots: Sequence[str | None]) -> float:
    """What a game with these bot seats asks of the move workers (0: no bot seat)."""
    cost = sum(BOT_COST[bot] for bot in bots if bot is not None)
    return cost * sum(rules.hand_sizes) / STANDARD_CARDS


def admit_bot_game(stores: Stores, limit: LoadLimit, game_id: str, weight: float) -> None:
    """Count ``game_id`` (about to be created) against ``limit``'s client, or refuse it
    (:class:`TooManyBotGamesError`) when the client's unfinished bot games and this one
    would weigh more than the cap. Games of the client that are over are forgotten in
    the same step."""
    if weight <= 0:
        return
    held = stores.loads.held(limit.client)
    records = stores.games.load_many(list(held))
    over = [g for g, r in zip(held, records, strict=True) if r is None or r.state.finished]
    total = stores.loads.admit(limit.client, game_id, weight, limit.cap, over,
                               LOAD_TTL_SECONDS)
    if total is not None:
        why = (f"this game's bot seats alone weigh {weight:g}, more than the {limit.cap:g} one "
               "client may hold: seat fewer or cheaper bots" if weight > limit.cap else
               f"your unfinished games with bot seats weigh {total:g} of the {limit.cap:g} "
               f"one client may hold, and this one {weight:g}: wait for one to end")
        raise TooManyBotGamesError(why, held=round(total, 3), weight=round(weight, 3),
                                   cap=limit.cap)
