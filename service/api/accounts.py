"""``/v1/accounts`` and ``/v1/me``: players who persist across games.

An account is made with ``POST /v1/accounts`` (its key shown once); its key, sent as
``Authorization: Bearer <key>``, then identifies it on every route a seat token is taken
(``service/play/credentials.py``) and on ``/v1/me…``: the account itself, its settings,
a new key, its webhook and that webhook's secret (``/v1/me/webhook-secret``), its games
(``/v1/me/games``), its analysed mistakes as puzzles (``/v1/me/mistakes``: routes in
:mod:`.mistakes`) and its stream of notes (``/v1/me/stream``, framed like a game's
stream: :mod:`.stream`). Every answer that carries a key or a webhook secret is
``no-store``; neither is ever logged (the access log has no headers or bodies) nor
counted, and ``GET /v1/me`` shows the webhook's URL, never its secret.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.core.instants import instant
from service.storage import Account
from service.wire.framing import NDJSON, SSE
from service.wire.queries import ticket_of

from .connections import client_connection
from .docs import ACCOUNT_KEY, NO_BEARER, header, json_body, problems, query
from .problems import ApiProblem
from .schemas.accounts import (
    AccountRequestSchema,
    AccountSchema,
    AccountSettingsSchema,
    CreatedAccountSchema,
    KeySchema,
    MyGamesSchema,
    ProfileSchema,
    UpdatedAccountSchema,
    WebhookSecretSchema,
)
from .stream import media_type, stream_cursor, stream_response
from .web import (
    QUERY_INT_MAX,
    config,
    json_response,
    load_body,
    my_account,
    query_int,
    stores,
)

__all__ = ["accounts_blp", "me_blp"]

accounts_blp = Blueprint("accounts", __name__, url_prefix="/v1/accounts",
                         description="Accounts: players and bots who persist across games.")
me_blp = Blueprint("me", __name__, url_prefix="/v1/me",
                   description="Your account (with its key): settings, key, games, stream.")

_CREATE = AccountRequestSchema()
_SETTINGS = AccountSettingsSchema()
NO_STORE = {"Cache-Control": "no-store"}



def _me(mine: Account) -> dict[str, object]:
    analyses = stores().analyses
    return {"handle": mine.handle, "bot": mine.bot, "created": instant(mine.created),
            "challenges_from": mine.challenges_from, "webhook_url": mine.webhook_url,
            "analyse_rated": mine.analyse_rated,
            "auto_analyses": {"per_day": analyses.auto_per_day,
                              "used": analyses.charged(mine.handle, time.time())},
            "last_note": stores().accounts.newest(mine.handle)}


@accounts_blp.route("")
class Accounts(MethodView):
    @accounts_blp.doc(**json_body("AccountRequest", "Your handle, and whether a program "
                                  "plays the account.", {"handle": "ann", "bot": False}),
                      operationId="createAccount", security=NO_BEARER)
    @accounts_blp.response(201, CreatedAccountSchema, headers={"Location": {
        "description": "The account's public profile.", "schema": {"type": "string"}}},
        example={"handle": "ann", "bot": False, "key": "ann.q0Zk3v6Xb0mQ1sP2aRt5uW8yB9cD1eF4"})
    @problems(accounts_blp, "handle_taken", "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body",
              "creation_limited")
    def post(self) -> Response:
        """Create an account

        The answer carries the account's `key`, shown only here: send it as
        `Authorization: Bearer <key>` wherever a seat token is taken, and on `/v1/me…`.
        A handle is unique regardless of case (`409 handle_taken`, also for the reference
        bots' names). Accounts made per client address are limited
        (`ACCOUNT_LIMIT_PER_ADDRESS`; `429 creation_limited`).
        """
        body = load_body(_CREATE)
        created, key = play.create_account(stores(), body["handle"], body["bot"])
        return json_response({"handle": created.handle, "bot": created.bot, "key": key}, 201,
                             {**NO_STORE, "Location": f"/v1/accounts/{created.handle}"})


HANDLE = {"in": "path", "name": "handle", "required": True, "description": "The handle.",
          "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


@accounts_blp.route("/<handle>", parameters=[HANDLE])
class Profile(MethodView):
    @accounts_blp.doc(operationId="getAccount", security=NO_BEARER)
    @accounts_blp.response(200, ProfileSchema, example={
        "handle": "ann", "bot": False, "reference": False, "ratings": {
            preset: {"rating": 1500.0, "deviation": 350.0, "games": 0, "provisional": True}
            for preset in ("classic", "bga", "family")}})
    @problems(accounts_blp, "unknown_account")
    def get(self, handle: str) -> Response:
        """An account's public profile

        Anyone may read it. The reference bots (`random`, `greedy`, `strong`) are
        accounts too (`reference: true`). A closed account is 404 `unknown_account`.
        """
        return json_response(play.profile(stores(), handle).to_json())


@me_blp.route("")
class Me(MethodView):
    @me_blp.doc(operationId="getMe", security=ACCOUNT_KEY)
    @me_blp.response(200, AccountSchema)
    @problems(me_blp, "invalid_token")
    def get(self) -> Response:
        """Your account"""
        return json_response(_me(my_account()), 200, {"Cache-Control": "private, no-cache"})

    @me_blp.doc(**json_body("AccountSettings", "The settings to change.",
                            {"challenges_from": "bots",
                             "webhook_url": "https://bots.example.com/three-thirteen"}),
                operationId="updateMe", security=ACCOUNT_KEY)
    @me_blp.response(200, UpdatedAccountSchema)
    @problems(me_blp, "invalid_token", "body_timeout", "body_too_large",
              "unsupported_media_type", "invalid_json", "invalid_body", "invalid_webhook_url")
    def patch(self) -> Response:
        """Change your settings

        `challenges_from`: who may challenge you (`anyone`, `bots`: declared bot
        accounts only, `nobody`). `analyse_rated`: have your rated games analysed when
        they finish, within `ANALYSIS_AUTO_PER_DAY` a day. `webhook_url`: where your `your_turn`, `challenge`
        and `game_finished` notes are POSTed (null: nowhere); a new or changed URL
        answers with its signing secret, `webhook_secret`, shown only then.
        """
        mine = my_account()
        changes = load_body(_SETTINGS)
        secret = None
        if "webhook_url" in changes:
            mine, secret = play.set_webhook(stores(), mine, changes.pop("webhook_url"),
                                            allow_private=config().webhook_allow_private)
        changed = play.update_settings(stores(), mine, **changes) if changes else mine
        if secret is None:
            return json_response(_me(changed), 200, {"Cache-Control": "private, no-cache"})
        return json_response({**_me(changed), "webhook_secret": secret}, 200, NO_STORE)

    @me_blp.doc(operationId="closeMe", security=ACCOUNT_KEY)
    @me_blp.response(204)
    @problems(me_blp, "invalid_token")
    def delete(self) -> Response:
        """Close your account

        Its key is refused from now on; its handle stays taken and shown in the games it
        played. Its seats in games still being played are the account's until those
        games end: close it after they do, or resign them first.
        """
        play.close_account(stores(), my_account())
        return Response(status=204)


@me_blp.route("/key")
class Key(MethodView):
    @me_blp.doc(operationId="rotateKey", security=ACCOUNT_KEY)
    @me_blp.response(201, KeySchema)
    @problems(me_blp, "invalid_token")
    def post(self) -> Response:
        """Replace your key

        The new key is shown only here; the old one is refused from the next request
        on, on every route (streams already open end by their `max_duration`).
        """
        key = play.rotate_key(stores(), my_account())
        return json_response({"key": key}, 201, NO_STORE)


@me_blp.route("/webhook-secret")
class WebhookSecret(MethodView):
    @me_blp.doc(operationId="rotateWebhookSecret", security=ACCOUNT_KEY)
    @me_blp.response(201, WebhookSecretSchema)
    @problems(me_blp, "invalid_token", "no_webhook")
    def post(self) -> Response:
        """Replace your webhook's secret

        The new secret is shown only here; every delivery from now on (retries of
        earlier events too) is signed with it alone. Without a `webhook_url`,
        409 `no_webhook`.
        """
        secret = play.rotate_webhook_secret(stores(), my_account())
        return json_response({"webhook_secret": secret}, 201, NO_STORE)


@me_blp.route("/games")
class MyGames(MethodView):
    @me_blp.doc(operationId="listMyGames", security=ACCOUNT_KEY, parameters=[
        query("status", "`in_progress` (games being played, or waiting for players), "
              "`finished`, or both (default: in progress first).",
              {"type": "string", "enum": ["in_progress", "finished"]}),
        query("cursor", "The `next_cursor` of the previous page (finished games).",
              {"type": "string", "minLength": 1, "maxLength": 200}),
        query("limit", "At most this many finished games (1-100, default 20); games in "
              "progress come all at once.", {"type": "integer", "minimum": 1, "maximum": 100}),
    ])
    @me_blp.response(200, MyGamesSchema)
    @problems(me_blp, "invalid_token", "invalid_query", "invalid_cursor")
    def get(self) -> Response:
        """Your games

        Every game you hold a seat in: those in progress first, the ones where it is
        your turn first of all (soonest deadline first), then those over, newest first,
        a page at a time. What a bot reads when it starts: it finds its games from its
        key alone.
        """
        mine = my_account()
        status = request.args.get("status")
        if status not in (None, "in_progress", "finished"):
            raise ApiProblem(422, "invalid_query", "query parameter 'status' must be "
                             "'in_progress' or 'finished'",
                             errors={"query": {"status": ["one of: in_progress, finished"]}})
        limit = query_int("limit", 20, 1, 100)
        assert limit is not None
        games, cursor = play.my_games(stores(), mine, status, request.args.get("cursor"),
                                      limit)
        return json_response({"games": games, "next_cursor": cursor}, 200,
                             {"Cache-Control": "private, no-cache"})


@me_blp.route("/stream")
class MyStream(MethodView):
    @me_blp.doc(operationId="streamMe", security=ACCOUNT_KEY, parameters=[
        query("after", "Send the notes numbered after this (default 0: all kept); "
              "`Last-Event-ID` wins over it. Beyond the newest: 422 `invalid_cursor`.",
              {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
        query("ticket", "A ticket from `POST /v1/me/stream-tickets` (single use, 30 s), for "
              "clients that cannot send `Authorization` (EventSource).",
              {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9_-]+$"}),
        header("Last-Event-ID", "Resume after this note (what EventSource sends when it "
               "reconnects).", {"type": "string", "pattern": "^[0-9]{1,15}$"}),
    ], responses={200: {
        "description": "Your notes as they come (`challenge`, `challenge_declined`, "
        "`challenge_canceled`, `game_started`, `your_turn`, `game_finished`, "
        "`analysis_skipped`, "
        "`tournament_invited`, `tournament_started`, `round_started`, `tournament_finished`, "
        "`evaluation_progress`), each once with "
        "its number as the event id; heartbeats while idle; a last `end` message.",
        "content": {
            SSE: {"schema": {"$ref": "#/components/schemas/AccountSseEvent"},
                  "x-oai-itemSchema": {"$ref": "#/components/schemas/AccountSseEvent"}},
            NDJSON: {"schema": {"type": "array", "description": "The stream's lines, one "
                                "`AccountStreamMessage` each; a heartbeat is an empty line.",
                                "items": {"$ref": "#/components/schemas/AccountStreamMessage"}},
                     "x-oai-itemSchema": {
                         "$ref": "#/components/schemas/AccountStreamMessage"}},
        },
        "headers": {"Cache-Control": {"description": "`private, no-cache`",
                                      "schema": {"type": "string"}}},
    }})
    @problems(me_blp, "invalid_token", "invalid_query", "invalid_cursor", "too_many_waits",
              "not_acceptable")
    def get(self) -> Response:
        """Follow your account as a stream

        Framed like a game's stream (SSE or NDJSON by `Accept`), resumable by
        `Last-Event-ID`: every note once, in order, across reconnections. Counts as one
        of its client's parked requests while open.
        """
        kind = media_type()
        after = stream_cursor()
        all_stores = stores()
        ticket = request.args.get("ticket")
        if ticket is not None:
            mine = play.redeem_account_ticket(all_stores, ticket_of(ticket))
        else:
            mine = my_account()
        play.check_note_cursor(all_stores, mine, after)
        services = current_app.extensions["three_thirteen"]

        holds = play.stream_holds(all_stores, mine, client_connection())

        def messages(_: Callable[[bytes], bytes]) -> Iterator[play.Message]:
            return play.note_messages(
                all_stores, mine, after, max_seconds=services.config.stream_max_seconds,
                heartbeat_seconds=services.config.stream_heartbeat_seconds,
                stopping=services.stopping.is_set, holds=holds)

        response = stream_response(messages, kind)
        response.headers["Cache-Control"] = "private, no-cache"
        return response


@me_blp.route("/stream-tickets")
class MyStreamTickets(MethodView):
    @me_blp.doc(operationId="createMyStreamTicket", security=ACCOUNT_KEY, responses={201: {
        "description": "A single-use ticket for `GET /v1/me/stream?ticket=`, valid 30 "
                       "seconds.",
        "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/StreamTicket"}}}}})
    @problems(me_blp, "invalid_token")
    def post(self) -> Response:
        """Get a ticket for your stream

        A browser's `EventSource` cannot send `Authorization`: trade the key for a
        ticket that opens one stream of your account within `expires_in` seconds.
        """
        ticket = play.issue_account_ticket(stores(), my_account())
        return json_response({"ticket": ticket, "expires_in": play.TICKET_TTL_SECONDS}, 201,
                             NO_STORE)
