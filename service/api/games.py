"""``/v1/games``: create, view, act, claim seats, rematch, long-poll (the event log: ``events.py``).

Each view is parse → play function (load → engine → save) → render; errors are
raised and mapped in ``problems.py``.

Waiting for a change: ``GET /v1/games/{id}?wait_version=N&timeout=S`` answers
at once when the version is not ``N``, else parks on the worker's notification hub
(``service/play/waits.py``) until the next move or ``S`` seconds (capped by
``LONG_POLL_MAX_SECONDS``), then returns the current view. ``?wait=turn`` waits the
same way but answers only when the caller's seat may act or the game is over (a
spectator is never on turn, so it waits for the end): the moves of the others wake it
inside the worker, which re-reads the game and parks again, so a bot makes one request
per turn instead of one per move of every player. ``GET …/events?after=N&timeout=S``
waits the same way for events after ``N``. A parked request is a greenlet of a gevent
worker, not a thread (see ``deploy/gunicorn.conf.py``).
"""

from __future__ import annotations

import re

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import metrics, play
from service.engine import GameState
from service.play import etag, game_view, game_view_bytes
from service.storage import Account, folded
from service.wire.queries import wait_turn as wait_turn_of

from .docs import (
    ACCOUNT_KEY_OPTIONAL,
    ETAG,
    GAME_ID,
    LOCATION,
    NO_BEARER,
    SEAT_BEARER,
    SEAT_BEARER_OPTIONAL,
    header,
    json_body,
    problems,
    query,
)
from .limits import bot_load, nothing_new
from .lobby import LOBBY_EXAMPLE, LOBBY_PARAMETERS, lobby_response
from .problems import ApiProblem
from .records import VERSION_QUERY
from .schemas import (
    ActionSchemas,
    ClaimRequestSchema,
    ClaimResponseSchema,
    CreateGameRequestSchema,
    CreateGameResponseSchema,
)
from .schemas.lobby import LobbyPageSchema
from .web import (
    QUERY_INT_MAX,
    account,
    bearer,
    check_action_cards,
    config,
    for_bearer,
    idempotency_key,
    if_match,
    json_response,
    load_body,
    parked,
    query_int,
    query_seconds,
    read_json,
    stores,
    valid_game_id,
)

blp = Blueprint(
    "games", __name__, url_prefix="/v1/games",
    description="Games: create, view, act, claim open seats, rematch, long-poll.",
)

_CREATE = CreateGameRequestSchema()
_CLAIM = ClaimRequestSchema()

CREATE_EXAMPLE = {"players": [{"name": "ann"}, {"bot": "strong"}],
                  "rules": {"preset": "classic"}, "seed": "7", "turn_seconds": 60}


def _account_seats(players: list[dict[str, object]]) -> list[Account | None] | None:
    """The account of each seat given as ``{"account": handle}``: only the bearer's own
    (401 without its key, 403 for another's), at most once (422)."""
    asked = [p.get("account") for p in players]
    if not any(asked):
        return None
    if len([a for a in asked if a]) > 1:
        raise ApiProblem(422, "invalid_body", "an account holds at most one seat of a game",
                         errors={"players": ["at most one account seat"]})
    mine = account(required=True)
    assert mine is not None
    if any(a and folded(str(a)) != folded(mine.handle) for a in asked):
        raise play.NotYourAccountError(
            "a game is created with your own account's seat only: others join by a claim, "
            "a seek or a challenge")
    return [mine if a else None for a in asked]


def _view_response(game_id: str, state: GameState, seat: int | None,
                   open_seats: list[int]) -> Response:
    body = game_view_bytes(game_id, state, seat, open_seats)
    return for_bearer(json_response(body, 200, {"ETag": etag(state.version)}), seat is not None)


def _seat_kind(bot: str | None, is_open: bool, account: Account | None) -> str:
    """A new seat's ``kind``: what says which of its fields are set (the document's
    discriminator of ``SeatToken``)."""
    return ("bot" if bot is not None else "open" if is_open
            else "account" if account is not None else "human")


def _links() -> dict[str, dict[str, object]]:
    """OpenAPI links from a created game to what one does next (clients and contract tests
    follow them: view, act as a seat, read events, claim a seat, stream, get a ticket)."""
    gid = {"game_id": "$response.body#/game_id"}
    links: dict[str, dict[str, object]] = {
        "GetGame": {"operationId": "getGame", "parameters": gid},
        "GetEvents": {"operationId": "getEvents", "parameters": gid},
        "ClaimSeat": {"operationId": "claimSeat", "parameters": {**gid, "seat": "1"}},
        "StreamGame": {"operationId": "streamGame", "parameters": gid},
    }
    for seat in (0, 1):
        auth = {"header.Authorization": f"Bearer {{$response.body#/seats/{seat}/token}}"}
        links[f"ViewAsSeat{seat}"] = {"operationId": "getGame", "parameters": {**gid, **auth}}
        links[f"ActAsSeat{seat}"] = {"operationId": "act", "parameters": {**gid, **auth}}
        links[f"StreamTicketAsSeat{seat}"] = {"operationId": "createStreamTicket",
                                              "parameters": {**gid, **auth}}
    return links


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="listGames", parameters=LOBBY_PARAMETERS, security=NO_BEARER)
    @blp.response(200, LobbyPageSchema, example=LOBBY_EXAMPLE)
    @problems(blp, "invalid_query", "invalid_cursor")
    def get(self) -> Response:
        """The lobby: games to join or to watch

        Newest first, paginated with `cursor`. Unlisted games never appear. A game
        marked `seeded_by_creator` was dealt from a seed its creator chose: the creator
        can know every hand. Only public facts are shown (names, rules, seats).
        """
        return lobby_response()

    @blp.doc(**json_body("CreateGameRequest", "The players (named, or open) and rules.",
                         CREATE_EXAMPLE), operationId="createGame", security=ACCOUNT_KEY_OPTIONAL,
             responses={201: {"links": _links()}})
    @blp.response(201, CreateGameResponseSchema, headers={**LOCATION, **ETAG})
    @problems(blp, "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body",
              "invalid_rules", "creation_limited", "too_many_bot_games", "invalid_token",
              "not_your_account")
    def post(self) -> Response:
        """Create a game

        Each named seat gets a token, shown only in this response. Seats given as
        `{"name": null}` are left open and claimed later with `POST /v1/games/{id}/seats/{seat}/claim`;
        nobody can act until every seat is claimed. A seat given as `{"account": "<your
        handle>"}` is your account's (send its key as the bearer): it is played with the
        key, and no token is made for it.
        """
        body = load_body(_CREATE)
        names = [p.get("name") for p in body["players"]]
        bots = [p.get("bot") for p in body["players"]]
        accounts = _account_seats(body["players"])
        mine = next((a for a in accounts or () if a is not None), None)
        record, tokens = play.create_game(stores(), body["rules"], names, body["seed"],
                                          bots=bots, turn_seconds=body["turn_seconds"],
                                          unlisted=body["unlisted"], load=bot_load(config()),
                                          accounts=accounts, agreed=play.agreed_by_key(mine))
        metrics.GAMES_CREATED.inc()
        state = record.state
        seats = [
            {"seat": s, "kind": _seat_kind(bots[s], s in record.open_seats,
                                           accounts[s] if accounts else None),
             "name": state.names[s], "open": s in record.open_seats, "bot": bots[s],
             "token": tokens[s]}
            for s in range(len(names))
        ]
        out = {
            "game_id": record.game_id,
            "seats": seats,
            "state": game_view(record.game_id, state, None, record.open_seats),
        }
        # the seat tokens are in this body, shown once: no cache may keep it
        return json_response(
            out, 201, {"Location": f"/v1/games/{record.game_id}", "ETag": etag(state.version),
                       "Cache-Control": "no-store"})


@blp.route("/<game_id>", parameters=[GAME_ID])
class Game(MethodView):
    @blp.doc(
        operationId="getGame",
        security=SEAT_BEARER_OPTIONAL,
        parameters=[
            query("wait_version", "Long-poll: if the game is at this version, wait for the "
                  "next change (or `timeout`).",
                  {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
            query("wait", "Long-poll: `turn` waits until the caller may act, or the game "
                  "is finished, or `timeout` (one request per turn, however many moves the "
                  "others make meanwhile; a spectator is never on turn, so it waits for the "
                  "end). With `wait`, `wait_version` is ignored.",
                  {"type": "string", "enum": ["turn"]}),
            query("timeout", "Seconds to wait with `wait_version` or `wait` (capped by the "
                  "server, 30 by default).", {"type": "number", "minimum": 0}),
            VERSION_QUERY,
        ],
    )
    @blp.response(200, "GameView", headers=ETAG)
    @problems(blp, "invalid_token", "unknown_game", "invalid_query", "too_many_waits",
              "game_not_finished", "record_not_replayable", "version_not_recorded")
    def get(self, game_id: str) -> Response:
        """The game as you may see it

        With a seat token: your hand and legal actions. Without: the spectator view.
        With `version` (a finished game): the view at that past version, for a replay.
        The body differs by bearer (`Cache-Control: private, no-cache` with a token,
        `Vary: Authorization` always) while the `ETag` is the plain version, so
        `If-None-Match` is not answered with 304 (one version has a body per bearer);
        to wait for a change without re-reading, long-poll.
        """
        valid_game_id(game_id)
        who = bearer()
        wait_version = query_int("wait_version", None, 0)
        wait_turn = wait_turn_of(request.args.get("wait"))
        timeout = query_seconds("timeout")
        all_stores = stores()
        if (version := query_int("version", None, 0)) is not None:
            body, seat = play.view_at(all_stores, game_id, who, version)
            return for_bearer(json_response(body, 200, {"ETag": etag(version)}), seat is not None)
        if timeout > 0 and (wait_turn or wait_version is not None):
            ready = (play.changed_from(wait_version) if wait_version is not None and not wait_turn
                     else play.on_turn)
            seen = wait_version if who is None and not wait_turn else None
            with parked():
                record, seat, body = play.view_when(all_stores, game_id, who, ready, timeout,
                                                    seen)
            return for_bearer(json_response(body, 200, {"ETag": etag(record.state.version)}),
                              seat is not None)
        record = all_stores.games.load(game_id)
        seat = play.seat_of(record, who)
        if seat is not None and (request.if_none_match.contains(str(record.state.version))
                                 or not play.may_act(record, seat)):
            nothing_new()  # a version it has, or a turn not its own asked without waiting
        return _view_response(game_id, record.state, seat, record.open_seats)


@blp.route("/<game_id>/actions", parameters=[GAME_ID])
class Actions(MethodView):
    @blp.doc(
        operationId="act",
        security=SEAT_BEARER,
        parameters=[
            header("If-Match", 'The version you decided on, as its ETag: `"12"`; the bare '
                   "number, `12`, is taken the same way (RFC 9110 wants the quotes, many "
                   "clients leave them out). 412 `version_conflict` unless it names the "
                   "game's version (`*`: any)."),
            header("Idempotency-Key", "Any unique string (1–200 chars): a retry with the same "
                   "key and body returns the first response instead of acting twice. Only "
                   "a seat's latest key is kept (for an hour); an older one is 409 "
                   "`idempotency_key_superseded`, never acted on again.",
                   {"type": "string", "minLength": 1, "maxLength": 200}),
        ],
        requestBody={
            "required": True,
            "description": "One action; every element of `legal_actions` is one.",
            "content": {"application/json": {
                "schema": {"oneOf": [{"$ref": f"#/components/schemas/{name}"}
                                     for name in ActionSchemas]},
                "examples": {
                    "draw": {"value": {"type": "draw", "source": "stock"}},
                    "discard": {"value": {"type": "discard", "card": "7H"}},
                    "go_out": {"value": {"type": "go_out", "discard": "7H"}},
                    "resign": {"summary": "any time: greedy plays the seat to the end",
                               "value": {"type": "resign"}},
                    "back": {"summary": "an away seat plays its own turns again",
                             "value": {"type": "back"}},
                    "abort": {"summary": "before your first turn: the game ends, no result",
                              "value": {"type": "abort"}},
                    "claim_victory": {"summary": "seat 1 is away: it resigns",
                                      "value": {"type": "claim_victory", "against": 1}},
                },
            }},
        },
    )
    @blp.response(200, "SeatView", headers=ETAG)
    @problems(blp, "invalid_token", "unknown_game", "not_your_turn", "illegal_action",
              "seat_resigned", "seat_away", "turn_timed_out", "seats_open",
              (409, "version_conflict"), (412, "version_conflict"), "idempotency_key_superseded",
              "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body", "invalid_card", "invalid_action",
              "idempotency_key_reused")
    def post(self, game_id: str) -> Response:
        """Act for your seat

        Returns your new view and its ETag. Races are serialized by the version:
        with `If-Match` a stale version is a 412; without it the action is checked
        against the current state and applied atomically.

        A `503` may be answered for an action that was in fact applied (a store write
        that timed out can still run). Send every action with an `Idempotency-Key`:
        a retry with the same key and body is the safe way to find out, as it returns
        the first response if the action was applied and applies it once if not.
        """
        valid_game_id(game_id)
        who = bearer(required=True)
        key = idempotency_key()
        body = read_json()
        check_action_cards(body)
        result = play.act(stores(), game_id, who, body, if_match=if_match(),
                          idempotency_key=key)
        if result.replayed:
            assert result.reply is not None
            response = json_response(result.reply.body, result.reply.status,
                                     {"ETag": result.reply.etag or "",
                                      "Idempotent-Replayed": "true"})
        else:
            assert result.state is not None and result.seat is not None
            # with an Idempotency-Key the reply stored with the move is the answer
            reply = (result.reply.body if result.reply is not None
                     else game_view_bytes(game_id, result.state, result.seat))
            response = json_response(reply, 200, {"ETag": etag(result.state.version)})
        return for_bearer(response, private=True)  # the acting seat's view, replayed or not


SEAT = re.compile(r"[0-9]{1,3}")
SEAT_PARAMETER = {"in": "path", "name": "seat", "description": "The seat number, from 0.",
                  "schema": {"type": "integer", "minimum": 0, "maximum": 7}}


def _seat_number(seat: str) -> int:
    """The seat of the path: any other segment (9, -1, x) is a seat no game has, so it is
    the same problem as a seat beyond this game's, not an unknown route."""
    if not SEAT.fullmatch(seat):
        raise play.UnknownSeatError(f"this game has no seat {seat!r}", seat=seat)
    return int(seat)


# The seat is matched as any path segment (not an int converter), so that a seat the game
# lacks answers 404 unknown_seat as problem+json instead of the router's plain 404.
@blp.route("/<game_id>/seats/<seat>/claim", parameters=[GAME_ID, SEAT_PARAMETER])
class Claim(MethodView):
    @blp.doc(**json_body("ClaimRequest", "Your name at the table.", {"name": "bob"}),
             operationId="claimSeat", security=ACCOUNT_KEY_OPTIONAL)
    @blp.response(200, ClaimResponseSchema, headers=ETAG)
    @problems(blp, "unknown_game", "unknown_seat", "seat_taken", (409, "version_conflict"),
              "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body",
              "invalid_token", "already_seated")
    def post(self, game_id: str, seat: str) -> Response:
        """Claim an open seat

        Returns the seat's token, once; sent with an account key, the seat is the
        account's (named by its handle, played with its key: no token, and `name` may be
        left out). The game starts when the last open seat is claimed; each claim is a
        new version and a public `seat_claimed` event. A seat the game does not have is
        a 404 `unknown_seat`; an account holding a seat of the game already, 409
        `already_seated`.
        """
        valid_game_id(game_id)
        number = _seat_number(seat)
        body = load_body(_CLAIM)
        mine = account()
        if mine is None and body.get("name") is None:
            raise play.AuthError("a claim without a name is an account's: send its key as "
                                 "Authorization: Bearer <key> (or name your player)")
        name = mine.handle if mine is not None else body["name"]
        record, token = play.claim_seat(stores(), game_id, number, name, mine)
        state = record.state
        out = {
            "game_id": game_id,
            "seat": number,
            "name": name,
            "token": token,
            "seeded_by_creator": state.seeded_by_creator,
            "state": game_view(game_id, state, number, record.open_seats),
        }
        # the seat's token is in this body, shown once: no cache may keep it
        return json_response(out, 200, {"ETag": etag(state.version), "Cache-Control": "no-store"})


@blp.route("/<game_id>/rematch", parameters=[GAME_ID])
class Rematch(MethodView):
    @blp.doc(operationId="askRematch", security=SEAT_BEARER)
    @blp.response(200, "SeatView", headers=ETAG)
    @problems(blp, "invalid_token", "unknown_game", "illegal_action", "seat_resigned",
              (409, "version_conflict"), "creation_limited", "too_many_bot_games")
    def post(self, game_id: str) -> Response:
        """Ask for (or accept) a rematch

        Only after the game is finished. Each player who did not resign asks once (bot
        seats accept at once; a resigned player is not asked, 409 `seat_resigned`, and its
        seat comes back open); the last one creates the rematch: same players in the same
        seats, same rules and clock, a fresh deal. Its id is in this game's
        `rematch.game_id` and in a `rematch_started` event on this game's log and stream;
        the token of every seat that did not resign plays the same seat there. A second
        ask, or one before the end, is a 409 `illegal_action`.
        """
        valid_game_id(game_id)
        who = bearer(required=True)
        record = play.ask_for_rematch(stores(), game_id, who, bot_load(config()))
        seat = play.seat_of(record, who)
        return _view_response(game_id, record.state, seat, record.open_seats)
