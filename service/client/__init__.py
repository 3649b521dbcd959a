"""A small typed Python client for the Three-Thirteen HTTP API.

Why a hand-written client next to the OpenAPI document: bots need the parts of
the protocol a generated client leaves to its user (waiting for a turn with the
long-poll, ``If-Match`` on every move, an ``Idempotency-Key`` so a retried move
is never applied twice, backing off on ``503``/``429`` as ``Retry-After`` says).
It speaks HTTP with the standard library's ``http.client`` (one keep-alive
connection per thread) and JSON with orjson; of the service it imports only the
shapes of the contract's JSON (``service.core.shapes``), so a bot runs without the
server's code or dependencies (Flask, Redis).

Typical use::

    client = Client("http://127.0.0.1:8000")
    game = client.create_game([None, None], rules={"preset": "classic"})
    me = client.claim(game.game_id, seat=0, name="me")
    final = me.play(lambda view: view["legal_actions"][0])
"""

from __future__ import annotations

from .account import Account, serve
from .http import ApiError, Client, ClientStats, CreatedGame, Seat, TransportError
from .types import Action, BotView, Event, GameView, PlayerView, RoundView, You

__all__ = [
    "Account",
    "Action",
    "ApiError",
    "BotView",
    "Client",
    "ClientStats",
    "CreatedGame",
    "Event",
    "GameView",
    "PlayerView",
    "RoundView",
    "Seat",
    "TransportError",
    "You",
    "serve",
]
