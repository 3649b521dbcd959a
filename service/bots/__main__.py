"""``python -m service.bots``: run one of the reference bots as an account, over HTTP.

The account's key comes from the environment (``THREE_THIRTEEN_KEY``) or a file
(``--key-file``), never the command line (other users of the machine read command
lines). The bot plays every game its account holds and accepts every challenge until
it is stopped (any signal: it keeps nothing of its own); killed and started again, it carries on from the
service's state alone (:func:`service.client.account.serve`). An example for bot authors
as much as a tool: put your own ``choose`` in place of the reference bot's.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from service.client.account import Account, serve
from service.client.http import Client
from service.client.types import Action, GameView

from . import BOTS, Bot, make_bot

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.bots", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the service")
    parser.add_argument("--bot", default="greedy", choices=sorted(BOTS),
                        help="the reference bot that decides")
    parser.add_argument("--key-file", type=Path,
                        help="a file holding the account key (else THREE_THIRTEEN_KEY)")
    args = parser.parse_args(argv)
    key = (args.key_file.read_text().strip() if args.key_file
           else os.environ.get("THREE_THIRTEEN_KEY", ""))
    if not key:
        parser.error("no key: set THREE_THIRTEEN_KEY or pass --key-file")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):  # nothing to save: the service holds it
        account = Account(Client(args.url), key)
        serve(account, per_game(account, args.bot))
    return 0


#: The games whose bot (and its events cursor) is kept: the most an account plays at once.
KEPT_GAMES = 64


def per_game(account: Account, name: str) -> Callable[[GameView], Action]:
    """A ``choose`` that keeps one bot per game, as the service does for a bot seat: a
    bot that reads the game's events (``strong`` counts the cards seen) is given each
    game's own, so it plays over HTTP as strongly as it plays on the service."""
    bots: OrderedDict[str, tuple[Bot, int]] = OrderedDict()

    def choose(view: GameView) -> Action:
        game_id = view["game_id"]
        if game_id not in bots:
            bot = make_bot(name)
            bot.start(view)
            bots[game_id] = (bot, 0)
            if len(bots) > KEPT_GAMES:
                bots.popitem(last=False)
        bot, after = bots[game_id]
        if bot.wants_events:
            events, after = account.client.events(game_id, account.key, after=after)
            bot.observe(events)
            bots[game_id] = (bot, after)
        bots.move_to_end(game_id)
        return bot.choose(view)

    return choose


if __name__ == "__main__":
    sys.exit(main())
