"""The bot ladder: bot accounts that join it are paired continuously, by rating, into rated
games with a clock, against each other and against the reference bots, whose fixed
ratings anchor the scale (:mod:`service.ratings.anchors`; docs/ratings.md).

Pairing is a move worker's job: a preset's ladder is a visit on the move workers'
schedule (a :class:`~service.storage.LadderVisit` job), so one worker at a time pairs it (the visit's lease), every
:data:`LADDER_SECONDS` while it has members. A pass forgets the ladder games that ended,
counts each member's games still in play against the games at once it asked for, and
seats every member with room (:func:`pair`): at a table of a size both ends allow, with
the members nearest its rating, never with one it sat with in each of its last
:data:`~service.storage.ladder.RECENT_TABLES` games (no pair more than three times in a
row). Each game is recorded before it is created, so a worker lost between the two
leaves a game the next pass finds gone and forgets, never a member over its count.

What bounds the work the ladder asks of the service: at most :data:`MAX_GAMES_AT_ONCE`
games per member, and each reference bot (whose moves the move workers make) in at most
:data:`ANCHOR_GAMES_AT_ONCE` ladder games per preset at once.
"""

from __future__ import annotations

import functools
import logging
import random
import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from service.bots import BOTS
from service.core.rules import preset_rules
from service.ratings import anchor
from service.storage import (
    Account,
    LadderEntry,
    LadderVisit,
    Lease,
    Stores,
    UnknownGameError,
    member_of,
)

from .admission import DAY, RATED_PAIR_LIMIT, Agreed, agreed_on_ladder, pair_name
from .errors import InvalidLadderEntryError, LadderForBotsError, PlayError
from .games import create_game
from .ratings import SYSTEM, known_preset

__all__ = ["ANCHOR_GAMES_AT_ONCE", "LADDER_SECONDS", "LADDER_TURN_SECONDS",
           "MAX_GAMES_AT_ONCE", "Candidate", "join_ladder", "ladder_view", "leave_ladder",
           "pair", "visit_ladder"]

log = logging.getLogger("three_thirteen.ladder")

#: Between two pairing passes of a preset's ladder.
LADDER_SECONDS = 2.0
#: A ladder game's turn clock: a bot that does not answer in a minute loses the turn.
LADDER_TURN_SECONDS = 60
#: The most ladder games a member may play at once.
MAX_GAMES_AT_ONCE = 4
#: The most ladder games a reference bot plays at once in one preset's ladder.
ANCHOR_GAMES_AT_ONCE = 8
#: The random spread (rating points) added to "nearest": tables vary between passes.
JITTER = 120.0


@dataclass(frozen=True, slots=True)
class Candidate:
    """A member as a pass sees it: its rating, the table sizes it plays, the games it may
    still start, and whether it is a reference bot (an anchor: never the one seeking)."""

    handle: str
    rating: float
    lo: int
    hi: int
    free: int
    reference: bool = False


def _too_often(a: str, b: str, recent: dict[str, list[list[str]]],
               anchors: frozenset[str]) -> bool:
    """``a`` and ``b`` sat together in each of a member's last three tables. Only the
    members' tables count: an anchor (a reference bot) sits wherever it is asked, so its
    own last tables all hold the one member of a ladder that has one, and judged from
    its side no anchor would ever sit with that member again."""
    return any(len(tables) >= 3 and all(other in t for t in tables)
               for one, other in ((a, b), (b, a)) if one not in anchors
               for tables in [recent.get(one, [])])


def pair(candidates: Sequence[Candidate], recent: dict[str, list[list[str]]],
         rng: random.Random, spent: Callable[[str, str], bool] = lambda a, b: False,
         ) -> list[list[str]]:
    """Tables for every member with room: each non-anchor member in turn (in a random
    order, again while any table was made) seeks one table of a size it and everyone
    seated allow, filled with those nearest its rating (with :data:`JITTER`) who have room
    and may sit with everyone already chosen: not a fourth time in a row, and not two
    members whose rated games together today are ``spent`` (the pair limit: their game
    would be unrated). Pure but for ``spent``'s reads; ``recent`` is copied, not changed."""
    by = {c.handle: c for c in candidates}
    anchors = frozenset(c.handle for c in candidates if c.reference)
    free = {c.handle: c.free for c in candidates}
    seen = {h: [list(t) for t in tables] for h, tables in recent.items()}
    seekers = [c for c in candidates if not c.reference]
    rng.shuffle(seekers)
    tables: list[list[str]] = []
    made = True
    while made:
        made = False
        for seeker in seekers:
            if free[seeker.handle] <= 0:
                continue
            sizes = list(range(max(2, seeker.lo), seeker.hi + 1))
            rng.shuffle(sizes)
            for size in sizes:
                table = _table(seeker, size, by, free, seen, rng, anchors, spent)
                if table is not None:
                    tables.append(table)
                    for handle in table:
                        free[handle] -= 1
                        seen[handle] = [[h for h in table if h != handle],
                                        *seen.get(handle, [])][:3]
                    made = True
                    break
    return tables


def _table(seeker: Candidate, size: int, by: dict[str, Candidate], free: dict[str, int],
           seen: dict[str, list[list[str]]], rng: random.Random, anchors: frozenset[str],
           spent: Callable[[str, str], bool]) -> list[str] | None:
    others = [c for c in by.values() if c.handle != seeker.handle and free[c.handle] > 0
              and c.lo <= size <= c.hi]
    others.sort(key=lambda c: abs(c.rating - seeker.rating) + rng.uniform(0, JITTER))
    chosen = [seeker.handle]
    for other in others:
        if not any(_too_often(other.handle, h, seen, anchors)
                   or (other.handle not in anchors and h not in anchors
                       and spent(other.handle, h)) for h in chosen):
            chosen.append(other.handle)
            if len(chosen) == size:
                return chosen
    return None


def join_ladder(stores: Stores, account: Account, preset: str, min_players: int,
                max_players: int, games_at_once: int, now: float) -> LadderEntry:
    """Put a bot account on ``preset``'s ladder (or change its entry); its entry."""
    if not account.bot:
        raise LadderForBotsError("the ladder is for bot accounts: create one with "
                                 '"bot": true')
    rules = preset_rules(known_preset(preset))
    if not rules.min_players <= min_players <= max_players <= rules.max_players:
        raise InvalidLadderEntryError(
            f"min_players and max_players are from {rules.min_players} to "
            f"{rules.max_players} in {preset}, min_players not above max_players")
    if not 1 <= games_at_once <= MAX_GAMES_AT_ONCE:
        raise InvalidLadderEntryError(f"games_at_once is from 1 to {MAX_GAMES_AT_ONCE}")
    entry = LadderEntry(min_players, max_players, games_at_once, now)
    stores.ladder.join(preset, account.handle, entry)
    stores.schedule.plan(member_of(LadderVisit(preset)), now)
    return entry


def leave_ladder(stores: Stores, account: Account, preset: str) -> bool:
    """Take the account off ``preset``'s ladder (its games in play go on)."""
    return stores.ladder.leave(known_preset(preset), account.handle)


def _rating(stores: Stores, handle: str, preset: str) -> float:
    stored = stores.ratings.ratings(handle).get(preset)
    return SYSTEM.initial.rating if stored is None else float(stored.value.rating)


def _candidates(stores: Stores, preset: str, busy: Counter[str]) -> list[Candidate]:
    out = []
    for handle, entry in stores.ladder.members(preset).items():
        account = stores.accounts.load(handle)
        if account is None or account.closed or not account.bot:
            continue
        out.append(Candidate(handle, _rating(stores, handle, preset), entry.min_players,
                             entry.max_players, entry.games_at_once - busy[handle]))
    rules = preset_rules(preset)
    for name, bot in BOTS.items():
        out.append(Candidate(name, anchor(name, bot.version).rating, rules.min_players,
                             rules.max_players, ANCHOR_GAMES_AT_ONCE - busy[name],
                             reference=True))
    return out


def _over(stores: Stores, game_id: str) -> bool:
    try:
        return stores.games.load(game_id).state.finished
    except UnknownGameError:  # never created (a lost worker), or expired
        return True


def visit_ladder(stores: Stores, lease: Lease, preset: str, now: float,
                 rng: random.Random | None = None) -> list[str]:
    """A pairing pass of ``preset``'s ladder (the job of ``lease``): the games it
    created. Released with the next pass while the ladder has members."""
    playing = stores.ladder.playing(preset)
    over = [game_id for game_id in playing if _over(stores, game_id)]
    stores.ladder.ended(preset, over)
    busy = Counter(h for game_id, seated in playing.items() if game_id not in over
                   for h in seated)
    candidates = _candidates(stores, preset, busy)
    agreed = agreed_on_ladder(c.handle for c in candidates if not c.reference)
    rng = rng or random.Random()
    created = []

    @functools.cache
    def spent(a: str, b: str) -> bool:
        return stores.ratings.pair_count(pair_name(a, b, preset), now, DAY) >= RATED_PAIR_LIMIT

    for table in pair(candidates, stores.ladder.recent(preset), rng, spent):
        rng.shuffle(table)
        game_id = secrets.token_urlsafe(12)
        stores.ladder.seat(preset, game_id, table)  # before the game: see the module
        try:
            created.append(_create(stores, preset, game_id, table, agreed))
        except PlayError:  # one table refused (logged): the pass and the others go on
            log.exception("ladder %s: the game of %s was not made", preset, table)
    members = any(not c.reference for c in candidates)
    stores.schedule.release(lease, now + LADDER_SECONDS if members else None)
    return created


def _create(stores: Stores, preset: str, game_id: str, table: list[str],
            agreed: Agreed) -> str:
    reference = [h if h in BOTS else None for h in table]
    accounts = [None if r is not None else stores.accounts.load(h)
                for h, r in zip(table, reference, strict=True)]
    create_game(stores, {"preset": preset}, table, None, bots=reference,
                turn_seconds=LADDER_TURN_SECONDS, game_id=game_id, accounts=accounts,
                rated=True, agreed=agreed)
    return game_id


def ladder_view(stores: Stores, preset: str) -> dict[str, object]:
    """The ladder as anyone sees it: its members (the reference bots too) with their
    ratings and games in play, and the games in play to watch."""
    known_preset(preset)
    playing = stores.ladder.playing(preset)
    busy = Counter(h for seated in playing.values() for h in seated)
    ranked = sorted(_candidates(stores, preset, busy), key=lambda c: -c.rating)
    members = [{"handle": c.handle, "reference": c.reference, "rating": round(c.rating, 2),
                "playing": busy[c.handle], "games_at_once": c.free + busy[c.handle],
                "min_players": c.lo, "max_players": c.hi} for c in ranked]
    return {"preset": preset, "members": members,
            "games": [{"game_id": g, "players": seated} for g, seated in playing.items()]}
