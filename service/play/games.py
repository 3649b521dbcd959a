"""Games, seats and tokens: create a game, claim a seat, act for a seat.

No Flask here: these functions take plain values and the stores (a
:class:`~service.storage.Stores`), and return what was saved (the HTTP layer renders
it) or raise the engine's errors or those of :mod:`.errors`. Each change is a small step
handed to :func:`.commit.commit`, which loads, saves with the version check and runs
every after-save effect; versions, events and who may move a seat are the engine's
(``apply``, ``claim``); this layer finds the bearer's seat and keeps idempotent replies.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from service.engine import GameState, apply, claim, new_game, parse_action
from service.engine.serialize import rules_from_json
from service.storage import (
    Account,
    GameRecord,
    ReplyKeySupersededError,
    StoredReply,
    Stores,
    UnknownGameError,
)
from service.verify.table import seal

from .admission import Admission, Agreed, Seat, Table, admit, agreed_by_key
from .commit import MAX_ATTEMPTS, Change, Step, commit, create
from .credentials import account_credential, hash_token, seat_of, seat_of_digest
from .errors import (
    AlreadySeatedError,
    AuthError,
    IdempotencyKeyReusedError,
    IdempotencyKeySupersededError,
    SeatsOpenError,
    SeatTakenError,
    UnknownSeatError,
)
from .loads import LoadLimit
from .views import game_view_bytes

__all__ = [
    "BOT_SEAT",
    "MAX_ATTEMPTS",
    "ActionResult",
    "act",
    "claim_seat",
    "create_game",
    "deal",
    "etag",
    "may_act",
    "seat_of",
    "seat_of_digest",
    "store_new_game",
]


def etag(version: int) -> str:
    """The ``ETag`` of a version (docs/api.md: the plain version, whoever asks)."""
    return f'"{version}"'


#: What stands for a token hash on a bot seat: claimed, and no sha256 digest equals it.
BOT_SEAT = "bot"


def create_game(
    stores: Stores,
    rules_spec: Mapping[str, Any] | None,
    players: Sequence[str | None],
    seed: str | int | None,
    *,
    bots: Sequence[str | None] | None = None,
    turn_seconds: int | None = None,
    now: float | None = None,
    unlisted: bool = False,
    token_hashes: Sequence[str | None] | None = None,
    game_id: str | None = None,
    load: LoadLimit | None = None,
    accounts: Sequence[Account | None] | None = None,
    rated: bool = False,
    secret_seed: bool = False,
    agreed: Agreed | None = None,
) -> tuple[GameRecord, list[str | None]]:
    """Admit and deal a new game (:func:`.admission.admit`: the rules every game keeps);
    ``None`` in ``players`` leaves that seat open, ``bots[seat]`` makes it a bot seat
    (claimed, no token). Returns the tokens (``None`` for open and bot seats). A bot that
    starts is played by a move worker (planned by the creation); with ``load``, a game
    with bot seats counts against its client's cap (:mod:`.loads`: 429 past it, before
    anything is stored).

    ``agreed`` says the path and who agreed to the game (:class:`.admission.Agreed`;
    default: a creation by nobody's key, so no account seat); ``accounts[seat]`` seats
    an account (held by its key, named by its handle: no token), which must be among
    them. ``rated`` asks for a rated game (played unrated when a pair of its accounts is
    past its daily limit).

    Unless ``unlisted``, the game is put on the lobby first (``open`` while seats are
    open, else ``in_progress``): see :mod:`service.storage.lobby` for why before.
    Matchmaking passes the seats' ``token_hashes`` (its seekers hold the tokens) and the
    ``game_id`` it announced; then no token is returned. ``secret_seed``: the ``seed`` is
    a fresh secret the service drew itself (a tournament's, which must know the first
    dealer to seat the tables), so the game is not ``seeded_by_creator``."""
    rules = rules_from_json(rules_spec)
    bot_of = list(bots) if bots is not None else [None] * len(players)
    held = list(accounts) if accounts is not None else [None] * len(players)
    seats = tuple(Seat(name if bot is None else bot, bot, account)
                  for name, bot, account in zip(players, bot_of, held, strict=True))
    table = Table(agreed or agreed_by_key(None), rules, seats, turn_seconds, rated, load)
    clock = time.time() if now is None else now
    admission = admit(stores, table, game_id or secrets.token_urlsafe(12), clock)
    return deal(stores, admission, seed, now=now, unlisted=unlisted,
                token_hashes=token_hashes, secret_seed=secret_seed)


def game_exists(stores: Stores, game_id: str) -> bool:
    """Whether the game ``game_id`` has been made: what a read of a matched seek or an
    accepted challenge asks before it names the game (the request that made the match or
    the last acceptance creates the game just after, or a move worker does if it died)."""
    try:
        stores.games.load(game_id)
    except UnknownGameError:
        return False
    return True


def deal(stores: Stores, admission: Admission, seed: str | int | None, *,
         now: float | None = None, unlisted: bool = False,
         token_hashes: Sequence[str | None] | None = None, secret_seed: bool = False,
         announced: bool = True) -> tuple[GameRecord, list[str | None]]:
    """Deal and store the game ``admission`` let in (nothing else can be dealt): its
    tokens as :func:`create_game` says; ``announced`` as :func:`.commit.create` says."""
    admission.verify()
    table = admission.table
    names = [s.name for s in table.seats]
    bot_of, held = table.bots, [s.account for s in table.seats]
    state = new_game(table.rules, names, seed, bots=bot_of,
                     turn_seconds=table.turn_seconds,
                     accounts=[None if a is None else a.handle for a in held],
                     account_bots=[a is not None and a.bot for a in held],
                     rated=admission.rated)
    if secret_seed:
        state = replace(state, seeded_by_creator=False)
    if token_hashes is None:
        tokens = [None if name is None or bot is not None or account is not None
                  else secrets.token_urlsafe(32)
                  for name, bot, account in zip(names, bot_of, held, strict=True)]
        hashes = [BOT_SEAT if bot is not None
                  else account_credential(account.handle) if account is not None
                  else None if t is None else hash_token(t)
                  for t, bot, account in zip(tokens, bot_of, held, strict=True)]
    else:
        tokens, hashes = [None] * len(names), list(token_hashes)
    record = store_new_game(stores, state, hashes, now, game_id=admission.game_id,
                            unlisted=unlisted, announced=announced)
    return record, tokens


def store_new_game(stores: Stores, state: GameState, hashes: Sequence[str | None],
                   now: float | None, *, game_id: str, unlisted: bool = False,
                   announced: bool = True) -> GameRecord:
    """Store a freshly dealt game, its salt sealing the table (``service/verify/table.py``),
    on the lobby unless ``unlisted`` (see :func:`.commit.create` for ``announced``). Only
    :func:`deal` calls it: a game is stored once admitted."""
    clock = time.time if now is None else (lambda: now)
    return create(stores, game_id, seal(state), tuple(hashes),
                  listed=not unlisted, announced=announced, clock=clock)


def _claim_step(seat: int, name: str, credential: str, account: Account | None) -> Step:
    def step(record: GameRecord) -> Change:
        if not 0 <= seat < len(record.token_hashes):
            raise UnknownSeatError(f"this game has no seat {seat}", seat=seat)
        if record.token_hashes[seat] is not None:
            raise SeatTakenError(f"seat {seat} is already taken", seat=seat)
        if credential in record.token_hashes:
            raise AlreadySeatedError(
                "this account holds a seat of this game already (one seat a game)",
                seat=record.token_hashes.index(credential))
        state, events = claim(record.state, seat, name,
                              None if account is None else account.handle,
                              account is not None and account.bot)
        hashes = list(record.token_hashes)
        hashes[seat] = credential
        return Change(state, events, tuple(hashes), seat)
    return step


def claim_seat(stores: Stores, game_id: str, seat: int, name: str,
               account: Account | None = None) -> tuple[GameRecord, str | None]:
    """Take an open seat: for a new token (returned once, here, and stored only as a
    hash), or for ``account`` (held by its key; no token). The last seat claimed starts
    the game and its first turn's clock."""
    token = None if account is not None else secrets.token_urlsafe(32)
    credential = (account_credential(account.handle) if account is not None
                  else hash_token(token))  # type: ignore[arg-type]
    saved = commit(stores, game_id, _claim_step(seat, name, credential, account))
    assert saved.record is not None
    return saved.record, token


@dataclass(frozen=True, slots=True)
class ActionResult:
    """What an action did: the saved ``state`` of the acting ``seat`` (the caller renders
    it), or, on a retry with the same Idempotency-Key, the first reply (``replayed``).

    ``reply`` is set whenever an Idempotency-Key was sent: then the reply stored with
    the save is the response, byte for byte the one a retry will get."""

    seat: int | None
    state: GameState | None
    reply: StoredReply | None
    replayed: bool


def _fingerprint(body: object) -> str:
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def act(
    stores: Stores,
    game_id: str,
    who: str | None,
    body: object,
    *,
    if_match: Callable[[int], bool] | None = None,
    idempotency_key: str | None = None,
) -> ActionResult:
    """Apply one action for the seat the credential ``who`` holds (:mod:`.credentials`:
    a seat token's hash, or an account's) and save it with a compare-and-set.

    ``if_match(version)`` says whether the client's ``If-Match`` accepts a version
    (``None``: no header, so a lost race is retried on the newer state, where the
    engine re-validates the action).

    With an ``idempotency_key`` the reply is rendered here, before the save (a pure
    function of the new state, :func:`.views.game_view_bytes`), and stored by the same
    atomic write as the move: a retry then finds either no move and no reply, or both.
    Storing only enough to rebuild it later would not do: the state it was rendered
    from is gone once the game moves on. The store keeps one reply per seat (the reply
    key's slot is the seat's credential, its id the key's): a client retries only its
    latest request, and an older key of the seat is refused with
    :class:`IdempotencyKeySupersededError` rather than acted on again.
    """
    parse_action(body)  # the shape first: a malformed body is a 400 at any version
    try:
        return _act(stores, game_id, who, body, if_match, idempotency_key)
    except ReplyKeySupersededError:
        raise IdempotencyKeySupersededError(
            "this Idempotency-Key was answered and then followed by a newer request of "
            "this seat: only the latest request of a seat can be retried"
        ) from None


def _act_step(digest: str, body: object) -> Step:
    def step(record: GameRecord) -> Change:
        seat = seat_of_digest(record, digest)
        if open_seats := record.open_seats:
            raise SeatsOpenError("the game starts when every seat is claimed",
                                 open_seats=open_seats)
        state, events = apply(record.state, seat, body)
        return Change(state, events, seat=seat)
    return step


def _reply(fingerprint: str) -> Callable[[GameRecord, int | None], StoredReply]:
    def render(record: GameRecord, seat: int | None) -> StoredReply:
        return StoredReply(fingerprint, 200, etag(record.state.version),
                           game_view_bytes(record.game_id, record.state, seat))
    return render


def _act(
    stores: Stores,
    game_id: str,
    who: str | None,
    body: object,
    if_match: Callable[[int], bool] | None,
    idempotency_key: str | None,
) -> ActionResult:
    """:func:`act` itself."""
    if who is None:
        raise AuthError("acting needs a seat token or an account key: send Authorization: "
                        "Bearer <token>")
    digest = who
    reply_key = None
    fingerprint = ""
    if idempotency_key is not None:
        fingerprint = _fingerprint(body)
        reply_key = f"{digest[:32]}:{hashlib.sha256(idempotency_key.encode()).hexdigest()[:16]}"
        earlier = stores.replies.stored_reply(game_id, reply_key)
        if earlier is not None:
            return _replayed(earlier, fingerprint)
    saved = commit(stores, game_id, _act_step(digest, body), if_match=if_match,
                   reply_key=reply_key, render_reply=_reply(fingerprint))
    if saved.replayed:
        assert saved.reply is not None
        return _replayed(saved.reply, fingerprint)
    assert saved.record is not None
    return ActionResult(saved.seat, saved.record.state, saved.reply, replayed=False)


def _replayed(reply: StoredReply, fingerprint: str) -> ActionResult:
    if reply.fingerprint != fingerprint:
        raise IdempotencyKeyReusedError(
            "this Idempotency-Key was used with a different request body"
        )
    return ActionResult(None, None, reply, replayed=True)


def may_act(record: GameRecord, seat: int | None) -> bool:
    """Whether ``seat`` has legal actions now (its turn, every seat claimed, not over)."""
    state = record.state
    return not state.finished and state.current_seat == seat and not record.open_seats
