"""Challenges: an account invites others to a game; it starts once all of them accept.

A challenge names its rules, its turn clock (:data:`CHALLENGE_TURN_SECONDS` by default,
up to 14 days; null: none, which each challenged agrees to by accepting), whether it is
rated, and up to 7 handles. It is ``pending`` until every one challenged has accepted
(``accepted``, with its ``game_id``, once that game exists), one declined
(``declined``), the challenger canceled it (``canceled``) or it expired unanswered
(``expired``, after ``expires_in``, :data:`CHALLENGE_DEFAULT_SECONDS` by default). The game's seats are the challenger
(seat 0), then those challenged in the order named; who deals first is the game's own
draw, as for any game.

The reference bots are accounts whose handles are their names: they accept at once (a
challenge to bots only starts its game in the answer) and the service plays their seats
(bot seats). An account may refuse challenges from anyone but declared bots, or from
everyone (``challenges_from``), and holds at most :data:`MAX_OPEN_CHALLENGES` pending
challenges of its own.

Every change is one compare-and-set of the challenge
(:meth:`~service.storage.ChallengeStore.change`), so two accepts racing for the last
seat start one game, and an accept racing a cancel wins or loses whole. What each side
hears goes through :func:`.notes.tell` (``challenge``, ``challenge_declined``,
``challenge_canceled``; ``game_started`` comes from the game itself). Expiry and the
start of a game whose accepting request died are the move workers' (a :class:`~service.storage.ChallengeVisit`
job, :func:`visit_challenge`), never a read's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.bots import BOTS
from service.core.instants import instant
from service.engine.game import check_ends, check_players, check_rated
from service.engine.serialize import rules_from_json
from service.storage import (
    Account,
    Challenge,
    ChallengeVisit,
    GameExistsError,
    Lease,
    Stores,
    folded,
    member_of,
)

from .admission import agreed_in_challenge, may_invite
from .errors import (
    ChallengeClosedError,
    InvalidChallengeError,
    TooManyBotGamesError,
    TooManyChallengesError,
    UnknownChallengeError,
)
from .games import create_game, game_exists
from .loads import LoadLimit
from .notes import tell
from .ratings import check_pairs

__all__ = ["CHALLENGE_DEFAULT_SECONDS", "CHALLENGE_MAX_SECONDS", "CHALLENGE_TURN_SECONDS", "MAX_OPEN_CHALLENGES", "MAX_TURN_SECONDS",
           "accept_challenge", "cancel_challenge", "challenge_json", "decline_challenge",
           "my_challenges", "open_challenge", "read_challenge", "visit_challenge"]

#: A challenge's turn clock unless it names one.
CHALLENGE_TURN_SECONDS = 60
#: The longest turn clock of a game (correspondence play): 14 days.
MAX_TURN_SECONDS = 14 * 86_400
#: How long a challenge waits for its answers unless it says, and at most.
CHALLENGE_DEFAULT_SECONDS = 3_600
CHALLENGE_MAX_SECONDS = 7 * 86_400
#: Pending challenges an account may have made at once.
MAX_OPEN_CHALLENGES = 20
#: A challenge's answered state is kept this long, for its challenger to read.
KEPT_AFTER_SECONDS = 7 * 86_400
#: How soon the workers start a game whose accepting request may have died.
START_GRACE_SECONDS = 5.0


def challenge_json(challenge: Challenge) -> dict[str, object]:
    """The challenge as the API shows it."""
    return {
        "challenge_id": challenge.challenge_id, "status": challenge.status,
        "challenger": challenge.challenger, "to": list(challenge.to),
        "accepted": list(challenge.accepted), "declined_by": challenge.declined_by,
        "rules": challenge.rules, "players": len(challenge.to) + 1,
        "turn_seconds": challenge.turn_seconds, "rated": challenge.rated,
        "created": instant(challenge.created), "expires": instant(challenge.expires),
        "game_id": challenge.game_id,
    }


def _humans(challenge: Challenge) -> list[str]:
    """The accounts in the challenge (the reference bots are no one's to notify)."""
    return [h for h in challenge.handles if folded(h) not in BOTS]


def _note(about: Challenge, kind: str, **fields: object) -> tuple[str, dict[str, object]]:
    return (f"ch:{about.challenge_id}:{kind}",
            {"type": kind, "challenge_id": about.challenge_id, **fields})


def _participant(challenge: Challenge, account: Account) -> None:
    """Refuse an account that is not in the challenge: it is none of its business (404)."""
    if folded(account.handle) not in {folded(h) for h in challenge.handles}:
        raise UnknownChallengeError("there is no challenge with this id for your account")


def open_challenge(stores: Stores, challenger: Account, to: Sequence[str],
                   rules_spec: Mapping[str, Any] | str | None, turn_seconds: int | None,
                   rated: bool, expires_in: int, load: LoadLimit | None = None,
                   now: float | None = None) -> Challenge:
    """Challenge the accounts ``to``: the reference bots among them accept at once (and a
    challenge of bots only starts its game now); the others hear a ``challenge`` note."""
    now = time.time() if now is None else now
    if folded(challenger.handle) in {folded(h) for h in to}:
        raise InvalidChallengeError("you cannot challenge yourself")
    if len({folded(h) for h in to}) != len(to):
        raise InvalidChallengeError("each handle is challenged once")
    if turn_seconds is not None and not 1 <= turn_seconds <= MAX_TURN_SECONDS:
        raise InvalidChallengeError(f"turn_seconds is from 1 to {MAX_TURN_SECONDS}")
    rules = rules_from_json(rules_spec)
    check_players(rules, len(to) + 1)
    # refused now, not when the last one accepts
    check_ends(rules, turn_seconds, [folded(h) if folded(h) in BOTS else None for h in to])
    if rated:  # every seat is an account's or a reference bot's: a challenge seats handles
        check_rated(rules, turn_seconds, [None] * (len(to) + 1), [challenger.handle, *to])
        check_pairs(stores, [challenger.handle, *(h for h in to if folded(h) not in BOTS)],
                    rules.preset, now)
    handles = [may_invite(stores, challenger, h) for h in to]
    pending = [c for c in (stores.challenges.load(i)
                           for i in stores.challenges.indexed(challenger.handle, now))
               if c is not None and c.status == "pending"
               and folded(c.challenger) == folded(challenger.handle)]
    if len(pending) >= MAX_OPEN_CHALLENGES:
        raise TooManyChallengesError(
            f"you have {len(pending)} pending challenges, the most at once: wait for their "
            "answers or cancel some", pending=len(pending), cap=MAX_OPEN_CHALLENGES)
    challenge = Challenge(
        challenge_id=secrets.token_urlsafe(12), status="pending",
        challenger=challenger.handle, to=tuple(handles),
        accepted=tuple(h for h in handles if h in BOTS), declined_by=None,
        rules=rules.to_dict(), turn_seconds=turn_seconds, rated=rated,
        created=now, expires=now + expires_in, game_id=None,
    )
    if len(challenge.accepted) == len(handles):  # bots only: the game starts now
        challenge = dataclasses.replace(challenge, status="accepted",
                                        game_id=secrets.token_urlsafe(12))
        # the game first: nobody knows this challenge yet, so nothing races its start,
        # and a request that dies between the two leaves no accepted challenge unstarted
        _start(stores, challenge, load)
        stores.challenges.create(challenge, expires_in + KEPT_AFTER_SECONDS)
        return challenge
    stores.challenges.create(challenge, expires_in + KEPT_AFTER_SECONDS)
    for handle in _humans(challenge):
        stores.challenges.index(handle, challenge.challenge_id, challenge.expires)
    stores.schedule.plan(member_of(ChallengeVisit(challenge.challenge_id)),
                         challenge.expires)
    for handle in handles:
        if handle not in BOTS:
            tell(stores, handle, [_note(challenge, "challenge",
                                        challenge=challenge_json(challenge))])
    return challenge


def read_challenge(stores: Stores, account: Account, challenge_id: str) -> Challenge:
    """The challenge, for one of those in it (404 for anyone else): ``accepted``, with
    its ``game_id``, once that game exists. Between the last acceptance and the game's
    creation (the accepting request's next step, or a move worker's within
    ``START_GRACE_SECONDS`` if that request died) it reads ``pending`` with everyone
    accepted, so a client never holds a game id the service answers 404 for."""
    challenge = _stored(stores, challenge_id)
    _participant(challenge, account)
    if (challenge.status == "accepted" and challenge.game_id is not None
            and not game_exists(stores, challenge.game_id)):
        return dataclasses.replace(challenge, status="pending", game_id=None)
    return challenge


def _stored(stores: Stores, challenge_id: str) -> Challenge:
    challenge = stores.challenges.load(challenge_id)
    if challenge is None:
        raise UnknownChallengeError("there is no challenge with this id (or it is long over)")
    return challenge


_Step = Callable[[Challenge], Challenge | None]


def _settle(stores: Stores, account: Account, challenge_id: str, verb: str,
            step: _Step) -> Challenge:
    challenge = _stored(stores, challenge_id)
    _participant(challenge, account)

    def checked(current: Challenge) -> Challenge | None:
        status = current.status
        if status == "pending" and current.expires <= time.time():
            status = "expired"  # its worker's visit is on the way
        if status != "pending":
            raise ChallengeClosedError(
                f"this challenge is {status}: it can no longer be {verb}",
                challenge_status=status)
        return step(current)

    changed = stores.challenges.change(challenge.challenge_id, checked)
    if changed is None:
        raise UnknownChallengeError("there is no challenge with this id (or it is long over)")
    return changed


def accept_challenge(stores: Stores, account: Account, challenge_id: str,
                     load: LoadLimit | None = None) -> Challenge:
    """Accept a challenge made to ``account``; the last acceptance starts the game."""
    def step(current: Challenge) -> Challenge | None:
        mine = [h for h in current.to if folded(h) == folded(account.handle)]
        if not mine:
            raise UnknownChallengeError("this challenge is not made to you: a challenger "
                                        "cancels it")
        if mine[0] in current.accepted:
            return None  # accepted already: once is enough
        accepted = tuple(h for h in current.to if h in {*current.accepted, mine[0]})
        if len(accepted) == len(current.to):
            return dataclasses.replace(current, accepted=accepted, status="accepted",
                                       game_id=secrets.token_urlsafe(12))
        return dataclasses.replace(current, accepted=accepted)

    challenge = _settle(stores, account, challenge_id, "accepted", step)
    if challenge.status == "accepted" and challenge.game_id is not None:
        # planned first: if this request dies before the game exists, a worker starts it
        stores.schedule.plan(member_of(ChallengeVisit(challenge_id)),
                             time.time() + START_GRACE_SECONDS)
        try:
            _start(stores, challenge, load)
        except TooManyBotGamesError:
            _unaccept(stores, challenge_id, account)  # or a worker would start it uncapped
            raise
    return challenge


def _unaccept(stores: Stores, challenge_id: str, account: Account) -> None:
    """Take back an acceptance whose game the cap refused: the challenge is pending again
    (``account`` may accept once it has room), unless its game was made meanwhile."""
    def step(current: Challenge) -> Challenge | None:
        if current.status != "accepted" or current.game_id is None:
            return None
        if game_exists(stores, current.game_id):
            return None  # made after all (a racing start)
        return dataclasses.replace(current, status="pending", game_id=None, accepted=tuple(
            h for h in current.accepted if folded(h) != folded(account.handle)))

    stores.challenges.change(challenge_id, step)


def decline_challenge(stores: Stores, account: Account, challenge_id: str) -> Challenge:
    """Decline a challenge made to ``account``: it is over for everyone in it."""
    def step(current: Challenge) -> Challenge:
        mine = [h for h in current.to if folded(h) == folded(account.handle)]
        if not mine:
            raise UnknownChallengeError("this challenge is not made to you: a challenger "
                                        "cancels it")
        return dataclasses.replace(current, status="declined", declined_by=mine[0])

    challenge = _settle(stores, account, challenge_id, "declined", step)
    _closed(stores, challenge, [_note(challenge, "challenge_declined",
                                      by=challenge.declined_by)],
            skip=challenge.declined_by)
    return challenge


def cancel_challenge(stores: Stores, account: Account, challenge_id: str) -> Challenge:
    """Cancel a challenge ``account`` made."""
    def step(current: Challenge) -> Challenge:
        if folded(current.challenger) != folded(account.handle):
            raise UnknownChallengeError("only its challenger cancels a challenge: decline it")
        return dataclasses.replace(current, status="canceled")

    challenge = _settle(stores, account, challenge_id, "canceled", step)
    _closed(stores, challenge, [_note(challenge, "challenge_canceled", reason="canceled")],
            skip=challenge.challenger)
    return challenge


def _closed(stores: Stores, challenge: Challenge, notes: list[tuple[str, dict[str, object]]],
            skip: str | None = None) -> None:
    """Tell everyone in an answered challenge (but ``skip``, who answered it) and drop it
    from their indexes."""
    for handle in _humans(challenge):
        stores.challenges.unindex(handle, challenge.challenge_id)
        if skip is None or folded(handle) != folded(skip):
            tell(stores, handle, notes)


def _start(stores: Stores, challenge: Challenge, load: LoadLimit | None) -> None:
    """Create the game of an accepted challenge, unless it exists (a racing start)."""
    seats = list(challenge.handles)
    accounts = [None if folded(h) in BOTS else stores.accounts.load(h) for h in seats]
    with contextlib.suppress(GameExistsError):
        create_game(stores, challenge.rules, seats, None,
                    bots=[folded(h) if folded(h) in BOTS else None for h in seats],
                    turn_seconds=challenge.turn_seconds, game_id=challenge.game_id,
                    load=load, accounts=accounts, rated=challenge.rated,
                    agreed=agreed_in_challenge(challenge))
    for handle in _humans(challenge):
        stores.challenges.unindex(handle, challenge.challenge_id)


def visit_challenge(stores: Stores, lease: Lease, challenge_id: str, now: float) -> None:
    """A move worker's visit of a challenge: expire it when due unanswered, or start the
    game of an accepted one whose accepting request did not (it died); then release it."""
    challenge = stores.challenges.load(challenge_id)
    if challenge is not None and challenge.status == "accepted" and challenge.game_id:
        if not game_exists(stores, challenge.game_id):
            _start(stores, challenge, None)
    elif challenge is not None and challenge.status == "pending":
        if now < challenge.expires:
            stores.schedule.release(lease, challenge.expires)
            return

        def expire(current: Challenge) -> Challenge | None:
            if current.status != "pending":
                return None
            return dataclasses.replace(current, status="expired")

        changed = stores.challenges.change(challenge_id, expire)
        if changed is not None and changed.status == "expired":
            _closed(stores, changed, [_note(changed, "challenge_canceled", reason="expired")])
        elif changed is not None and changed.status == "accepted":
            stores.schedule.release(lease, now + START_GRACE_SECONDS)
            return
    stores.schedule.release(lease, None)


def my_challenges(stores: Stores, account: Account, now: float | None = None) -> list[Challenge]:
    """The pending challenges ``account`` made or received, soonest to expire first."""
    now = time.time() if now is None else now
    found = [stores.challenges.load(i) for i in stores.challenges.indexed(account.handle, now)]
    return [c for c in found if c is not None and c.status == "pending"
            and c.expires > now]
