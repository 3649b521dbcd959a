"""Admission: the one way into a game, and the rules that hold for every game.

Every path that seats players in a new game (``POST /v1/games``, a challenge accepted, a
seek matched, a tournament round, a ladder pass, a rematch, an evaluation's deal) describes it as a
:class:`Table` and hands it to :func:`admit`; only what :func:`admit` returns can be
dealt (:func:`.games.create_game`). So a rule that must hold for every game is written
here once, and a new path cannot forget it because there is no other way in:

* **Playable.** The rules seat and deal to these players, and a game the service plays
  a seat or a clock of can end (a turn limit).
* **Consent.** An account is seated only where it said so, read off the path's own
  document by one function per path (:class:`Agreed`): its key on the request that
  creates the game, a challenge it made or accepted, a seek it opened with its key, a
  tournament it joined or whose invitation it accepted, the ladder it joined, a rematch
  it asked for, an evaluation it started. Invitations (challenges, tournaments) honour ``challenges_from``
  (:func:`may_invite`).
* **Rated protections.** A rated game is only between consenting accounts and reference
  bots, on a preset's rules, with a clock, on a path that rates (a rematch never does);
  and two accounts play at most :data:`RATED_PAIR_LIMIT` rated games together
  a day, counted when each game is admitted, whatever path made it. Past the limit the
  game is still made (a tournament's round or a matched seek must go on) but unrated.
* **Cost.** A game with bot seats weighs the most work its bots can ask of the move
  workers (:func:`.loads.bot_game_weight`), counted against the cap of the client that
  asked for it (:func:`.loads.admit_bot_game`). The paths the move workers take (a
  tournament's round, a ladder pass, an evaluation's deal) count against no client's
  cap: each path's own rules bound its games (games at once per member, one deal per
  anchor in play).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from service.bots import BOTS
from service.core.rules import Rules
from service.engine import GameState
from service.engine.game import check_ends, check_players, check_rated
from service.storage import Account, Challenge, Evaluation, Stores, Tournament, folded

from .credentials import ACCOUNT_PREFIX
from .errors import (
    ChallengeRefusedError,
    InvalidChallengeError,
    NotYourAccountError,
    UnknownAccountError,
)
from .loads import LoadLimit, admit_bot_game, bot_game_weight

__all__ = ["DAY", "RATED_PAIR_LIMIT", "RATED_PATHS", "Admission", "Agreed", "Path", "Seat", "Table", "admit",
           "agreed_by_key", "agreed_in_challenge", "agreed_in_evaluation", "agreed_in_seek",
           "agreed_in_tournament",
           "agreed_on_ladder", "agreed_to_rematch", "may_invite", "pair_name"]

#: The most rated games two accounts may play together in a day, in one preset.
RATED_PAIR_LIMIT = 10
#: How long a rated game counts against its pairs' daily limit.
DAY = 86_400.0


def pair_name(a: str, b: str, preset: str) -> str:
    """The name of a pair of accounts in ``preset`` (whichever is named first), under
    which its rated games of the day are counted (:func:`.admission.admit`)."""
    x, y = sorted((folded(a), folded(b)))
    return f"{preset}:{x}|{y}"


class Path(Enum):
    """The ways a game comes to be."""

    GAME = "game"  # POST /v1/games
    CHALLENGE = "challenge"
    SEEK = "seek"
    TOURNAMENT = "tournament"
    LADDER = "ladder"
    REMATCH = "rematch"
    EVALUATION = "evaluation"


#: The paths whose games may be rated (a rematch is a friendly game, an evaluation's deal a
#: measurement: never rated).
RATED_PATHS = frozenset({Path.CHALLENGE, Path.SEEK, Path.TOURNAMENT, Path.LADDER})


@dataclass(frozen=True, slots=True)
class Agreed:
    """The accounts that agreed to a game, read off the document of its path (what
    :func:`admit` checks every account seat against): made only by the functions below,
    one per way of agreeing."""

    path: Path
    handles: frozenset[str]  # folded


def agreed_by_key(account: Account | None) -> Agreed:
    """``POST /v1/games``: the account whose key the request carries, alone."""
    return Agreed(Path.GAME, frozenset() if account is None else frozenset({folded(account.handle)}))


def agreed_in_challenge(challenge: Challenge) -> Agreed:
    """An accepted challenge: its challenger and everyone who accepted it."""
    if challenge.status != "accepted":
        return Agreed(Path.CHALLENGE, frozenset())
    return Agreed(Path.CHALLENGE, frozenset(folded(h) for h in [challenge.challenger,
                                                                 *challenge.accepted]))


def agreed_in_seek(credentials: Sequence[str]) -> Agreed:
    """A match: the accounts whose seeks it joined (a seek holds its opener's credential,
    an account's only when opened with its key)."""
    return Agreed(Path.SEEK, frozenset(c.removeprefix(ACCOUNT_PREFIX) for c in credentials
                                       if c.startswith(ACCOUNT_PREFIX)))


def agreed_in_tournament(tournament: Tournament) -> Agreed:
    """A tournament's round: its entrants (who joined it, or accepted its invitation),
    not those invited who did not answer."""
    return Agreed(Path.TOURNAMENT, frozenset(folded(h) for h in tournament.entrants))


def agreed_on_ladder(members: Iterable[str]) -> Agreed:
    """A ladder pass: the preset ladder's members (bot accounts that joined it)."""
    return Agreed(Path.LADDER, frozenset(folded(h) for h in members))


def agreed_in_evaluation(evaluation: Evaluation) -> Agreed:
    """An evaluation's deal: the bot account that started the evaluation."""
    return Agreed(Path.EVALUATION, frozenset({folded(evaluation.handle)}))


def agreed_to_rematch(state: GameState) -> Agreed:
    """A rematch: the accounts of the seats that asked for it."""
    accounts = state.accounts or (None,) * state.players
    return Agreed(Path.REMATCH, frozenset(folded(handle) for s in state.rematch_asked
                                          if (handle := accounts[s]) is not None))


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat of the game to be: a named player (a token's), an open seat (no name), a
    reference bot, or an account."""

    name: str | None = None
    bot: str | None = None
    account: Account | None = None

    @classmethod
    def of(cls, account: Account) -> Seat:
        """An account's seat, named by its handle."""
        return cls(account.handle, None, account)

    @property
    def handle(self) -> str | None:
        return None if self.account is None else self.account.handle


@dataclass(frozen=True, slots=True)
class Table:
    """A game to be admitted: its rules, seats, clock, whether it is rated, who agreed to
    it (which says its path), and ``load``, the client whose bot-game cap it counts
    against (``None``: no cap, a worker's path, whose own rules bound it)."""

    agreed: Agreed
    rules: Rules
    seats: tuple[Seat, ...]
    turn_seconds: int | None = None
    rated: bool = False
    load: LoadLimit | None = None

    @property
    def path(self) -> Path:
        return self.agreed.path

    @property
    def bots(self) -> list[str | None]:
        return [s.bot for s in self.seats]


_ADMITTED = object()


@dataclass(frozen=True, slots=True)
class Admission:
    """A table :func:`admit` let in under ``game_id``: ``rated`` as it will be played (a
    pair past its daily limit plays unrated: ``unrated_why``), ``weight`` its cost."""

    table: Table
    game_id: str
    rated: bool
    weight: float
    unrated_why: str | None = None
    _proof: object = field(default=None, repr=False, compare=False)

    def verify(self) -> None:
        """Refuse an admission :func:`admit` did not make (a path that went around it)."""
        if self._proof is not _ADMITTED:
            raise TypeError("a game is dealt only from what admit() returned")


def may_invite(stores: Stores, inviter: Account, handle: str) -> str:
    """The handle as registered (or the reference bot's name) if ``inviter`` may invite
    it to a game (a challenge, a tournament): an open account that takes invitations from
    it (``challenges_from``: ``anyone``, ``bots`` for bot accounts only, or ``nobody``)."""
    if folded(handle) in BOTS:
        return folded(handle)
    if folded(handle) == folded(inviter.handle):
        raise InvalidChallengeError("you cannot invite yourself")
    account = stores.accounts.load(handle)
    if account is None or account.closed:
        raise UnknownAccountError(f"there is no account {handle!r}")
    if account.challenges_from == "nobody" or (account.challenges_from == "bots"
                                               and not inviter.bot):
        raise ChallengeRefusedError(f"{account.handle} takes no invitations from you "
                                    f"(challenges_from: {account.challenges_from})")
    return account.handle


def admit(stores: Stores, table: Table, game_id: str, now: float) -> Admission:
    """Let ``table`` in as game ``game_id``, or refuse it with the error of the first rule
    it breaks. Admitting the same game id again (a worker's retry) admits it as before."""
    n = len(table.seats)
    check_players(table.rules, n)
    check_ends(table.rules, table.turn_seconds, table.bots)
    _check_consent(table)
    rated = table.rated
    if rated:
        if table.path not in RATED_PATHS:
            raise ValueError(f"a game made by {table.path.value} is never rated")
        check_rated(table.rules, table.turn_seconds, table.bots,
                    [s.handle for s in table.seats])
    weight = bot_game_weight(table.rules, table.bots)
    if table.load is not None:
        admit_bot_game(stores, table.load, game_id, weight, now)
    why = None
    if rated and not _count_pairs(stores, table, game_id, now):
        rated, why = False, "rated_pair_limited"
    return Admission(table, game_id, rated, weight, why, _ADMITTED)


def _check_consent(table: Table) -> None:
    """Every account seated agreed. An account closed since it agreed is still seated (a
    tournament's round, an accepted challenge, a match go on): nobody plays its seat, so
    its clock runs out, as it would for a player who left."""
    for seat in table.seats:
        if seat.account is None:
            continue
        if folded(seat.account.handle) not in table.agreed.handles:
            raise NotYourAccountError(
                f"{seat.account.handle} did not agree to this game: an account sits only "
                "where it asked or accepted (a game is created with your own account's "
                "seat only; others join by a claim, a seek, a challenge or a tournament)")


def _count_pairs(stores: Stores, table: Table, game_id: str, now: float) -> bool:
    """Count the game against the daily limit of each pair of accounts at the table (a
    reference bot's rating is fixed: no pair with one is farmed); ``False``, counting
    nothing, when a pair has had its :data:`RATED_PAIR_LIMIT` rated games today."""
    handles = sorted({folded(h) for s in table.seats if s.bot is None
                      for h in [s.handle] if h is not None})
    counted: list[str] = []
    for a, b in itertools.combinations(handles, 2):
        pair = pair_name(a, b, table.rules.preset)
        if stores.ratings.admit_pair(pair, game_id, now, DAY, RATED_PAIR_LIMIT) is not None:
            for done in counted:
                stores.ratings.forget_pair(done, game_id)
            return False
        counted.append(pair)
    return True
