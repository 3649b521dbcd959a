"""Starting a game: check the table fits the rules, fix the seed, deal round 1; name open seats."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from service.core.errors import IllegalActionError, InvalidActionError, InvalidRulesError
from service.core.rules import Rules, preset_rules

from .events import Event, EventLog, round_started
from .rounds import deal_round
from .seats import bot_names
from .shoe import RandomStream, commitment
from .state import BOT, HUMAN, IN_PROGRESS, GameState, updated

__all__ = ["MAX_SEED_LENGTH", "check_ends", "check_players", "check_rated", "claim", "new_game",
           "opening_events", "seed_commitment"]

MAX_SEED_LENGTH = 64


def check_players(rules: Rules, n: int) -> None:
    """Refuse ``n`` players these rules cannot seat or deal to (:class:`InvalidRulesError`)."""
    if not rules.min_players <= n <= rules.max_players:
        raise InvalidRulesError(
            f"these rules are for {rules.min_players} to {rules.max_players} players, not {n}",
            option="players",
        )
    shoe_size = 52 * rules.decks_for(n) + rules.jokers
    need = n * max(rules.hand_sizes) + 1  # the hands and the turned-up card
    if need >= shoe_size:  # and a stock of one card at least: a round must be playable
        raise InvalidRulesError(
            f"a shoe of {shoe_size} cards cannot deal {max(rules.hand_sizes)} cards to {n} "
            "players, turn one up and leave a stock: use more decks",
            option="decks",
        )


def check_ends(rules: Rules, turn_seconds: int | None, bots: Sequence[str | None] = ()) -> None:
    """Refuse ``turn_limit: null`` for a game the service plays a seat or a clock of: such
    a game must end (matchmaking and challenges check it before a game is made)."""
    if rules.turn_limit is None and (turn_seconds is not None or any(bots)):
        raise InvalidRulesError(
            "turn_limit null is only for games of humans without a turn clock: a game the "
            "service plays a seat or a clock of must end", option="turn_limit")


def check_rated(rules: Rules, turn_seconds: int | None, bots: Sequence[str | None],
                accounts: Sequence[str | None]) -> None:
    """Refuse a rated game a rating would not mean the same in: one without a turn clock,
    with a seat that is neither an account's nor a reference bot's, or with rules that are
    not a preset's unchanged (a rating is per preset: docs/ratings.md; ``decks: "auto"``
    and the number it comes to for this table are the same)."""
    if turn_seconds is None:
        raise InvalidRulesError("a rated game has a turn clock: give turn_seconds",
                                option="rated")
    if any(bot is None and account is None for bot, account in zip(bots, accounts, strict=True)):
        raise InvalidRulesError("every seat of a rated game is an account's or a reference "
                                "bot's", option="rated")
    n, preset = len(bots), preset_rules(rules.preset)
    if {**rules.to_dict(), "decks": rules.decks_for(n)} != {**preset.to_dict(),
                                                           "decks": preset.decks_for(n)}:
        raise InvalidRulesError(f"a rated game plays the preset's rules unchanged (a rating "
                                f"is per preset): send {{\"preset\": \"{rules.preset}\"}} alone",
                                option="rated")


def new_game(
    rules: Rules, names: list[str | None], seed: str | int | None = None, *,
    seed_salt: str | None = None, bots: Sequence[str | None] | None = None,
    turn_seconds: int | None = None, table_nonce: str | None = None,
    accounts: Sequence[str | None] | None = None,
    account_bots: Sequence[bool] | None = None,
    rated: bool = False,
) -> GameState:
    """A new game of ``len(names)`` players, dealt and waiting for the first draw.

    ``seed`` (a creator's choice) makes every shuffle reproducible; without one
    the seed is a fresh 128-bit secret. Either way it stays hidden until the
    end, and the view shows its salted commitment from the start. ``seed_salt``
    is for replaying a finished game from its revealed seed and salt (the
    replay is then equal to the original, bit for bit); normally it is fresh.

    ``bots[seat]`` names the reference bot of a bot seat (its name is the bot's own,
    numbered from the second of a kind: :func:`.seats.bot_names`, whatever ``names``
    says); ``turn_seconds`` is the turn clock (:mod:`.seats`, docs/lifecycle.md). A game
    the service plays itself (a bot seat, or a clock) must end, so it needs the rules'
    ``turn_limit``. ``table_nonce`` is carried hidden until the end, like the seed (the
    service makes the salt from it and the table: ``service/verify/table.py``).
    ``accounts[seat]`` is the handle of the account holding a seat (its name is the
    handle), ``account_bots[seat]`` whether that account is a declared bot. A ``rated``
    game must be one a rating means the same in: :func:`check_rated`.
    """
    n = len(names)
    check_players(rules, n)
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = str(seed)  # the contract takes an integer seed as its decimal text
    if seed is not None and (not isinstance(seed, str) or len(seed) > MAX_SEED_LENGTH):
        raise InvalidRulesError(
            f"a seed must be a string of at most {MAX_SEED_LENGTH} characters", option="seed"
        )
    bot_of = tuple(bots) if bots is not None else (None,) * n
    if len(bot_of) != n:
        raise InvalidRulesError("one bot entry per seat", option="players")
    if turn_seconds is not None and (isinstance(turn_seconds, bool) or turn_seconds < 1):
        raise InvalidRulesError("turn_seconds is a whole number of seconds, at least 1",
                                option="turn_seconds")
    check_ends(rules, turn_seconds, bot_of)
    names = [name if bot is None else auto
             for name, bot, auto in zip(names, bot_of, bot_names(bot_of), strict=True)]
    held = tuple(accounts) if accounts is not None else (None,) * n
    programs = tuple(account_bots) if account_bots is not None else (False,) * n
    if len(held) != n or len(programs) != n:
        raise InvalidRulesError("one account entry per seat", option="players")
    if rated:
        check_rated(rules, turn_seconds, bot_of, held)
    names = [handle if handle is not None else name for name, handle in zip(names, held,
                                                                            strict=True)]
    seeded = seed is not None
    the_seed = seed if seed is not None else secrets.token_hex(16)
    state = GameState(
        rules=rules,
        names=tuple(names),
        seed=the_seed,
        seed_salt=seed_salt if seed_salt is not None else secrets.token_hex(16),
        seeded_by_creator=seeded,
        first_dealer=RandomStream(the_seed, "first-dealer").below(n),
        version=0,
        event_seq=0,
        status=IN_PROGRESS,
        round_index=0,
        reshuffles=0,
        hands=tuple(() for _ in names),
        stock=(),
        discard=(),
        current_seat=0,
        phase=None,
        went_out=None,
        table=(),
        arranged=(),
        scores=tuple(() for _ in names),
        last_round=None,
        seat_kinds=tuple(BOT if b is not None else HUMAN for b in bot_of),
        bots=bot_of,
        turn_seconds=turn_seconds,
        timeouts=(0,) * n,
        table_nonce=table_nonce,
        accounts=held if any(held) else (),
        account_bots=programs if any(held) else (),
        rated=rated,
    )
    log = EventLog(0)
    state = deal_round(state, 0, log)
    return updated(state, event_seq=log.seq)


def seed_commitment(state: GameState) -> str:
    return commitment(state.seed, state.seed_salt)


def opening_events(state: GameState) -> list[Event]:
    """The events of the deal of round 1 (``seq`` 1), for a log that starts with the game.

    ``new_game`` returns only the state, whose ``event_seq`` already counts
    this deal; call this on that fresh state (version 0) to get its event.
    """
    if state.version != 0:
        raise ValueError("opening_events() is for the state new_game() returned")
    log = EventLog(0)
    round_started(log, state)
    return log.events


def claim(state: GameState, seat: int, name: str, account: str | None = None,
          account_bot: bool = False) -> tuple[GameState, list[Event]]:
    """Name the open ``seat`` (a game created with ``None`` for it), for an ``account``
    (its handle, which is then the name) if one claims it: a new version and a public
    ``seat_claimed`` event, so a creator long-polling for an opponent wakes up when one
    arrives. Made here, like every other version and event, so the counters have one
    author."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise InvalidActionError(f"there is no seat {seat!r} in this game", field="seat")
    if state.names[seat] is not None:
        raise IllegalActionError(f"seat {seat} is already taken", seat=seat)
    names = list(state.names)
    names[seat] = account if account is not None else name
    log = EventLog(state.event_seq)
    claimed: dict[str, object] = {"seat": seat, "name": names[seat]}
    changes: dict[str, object] = {}
    if account is not None:
        claimed.update(account=account, account_bot=account_bot)
        held = list(state.accounts or (None,) * state.players)
        programs = list(state.account_bots or (False,) * state.players)
        held[seat], programs[seat] = account, account_bot
        changes = {"accounts": tuple(held), "account_bots": tuple(programs)}
    log.add("seat_claimed", claimed)
    new = updated(state, names=tuple(names), version=state.version + 1, event_seq=log.seq,
                  **changes)  # type: ignore[arg-type]
    return new, log.events
