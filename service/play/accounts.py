"""Accounts: create one, rotate its key, close it, show its profile, change its settings.

A handle is 2 to 24 characters of ``A-Z a-z 0-9 _ -`` (:data:`HANDLE_PATTERN`), unique
regardless of case: ASCII has no other confusables under Unicode's case folding, so the
store keys handles case-folded and refuses a second ``Ann`` beside ``ann``. The reference
bots are accounts whose handles are their names (:data:`RESERVED` holds them and a few
words a client could mistake for the service): a challenge to one is accepted at once and
the service plays it; nobody can register them.

The key is shown once, at creation or rotation, and stored only as its sha256
(``service/play/credentials.py``); rotating replaces the stored hash, so the old key is
refused from the next request on. Closing an account keeps its handle taken (its
finished games keep showing it) and refuses its key.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from service.bots import BOTS
from service.storage import Account, Stores, folded

from .credentials import hash_token, new_key
from .errors import AuthError, HandleTakenError, UnknownAccountError
from .ratings import ShownRating, ratings_of

__all__ = ["CHALLENGES_FROM", "HANDLE_PATTERN", "RESERVED", "Profile", "close_account", "create_account",
           "profile", "rotate_key", "update_settings"]

HANDLE_PATTERN = r"^[A-Za-z0-9_-]{2,24}$"
_HANDLE = re.compile(HANDLE_PATTERN)
#: Handles nobody registers: the reference bots' (present and planned) and the service's.
RESERVED = frozenset({*BOTS, "simple", "expert", "me", "admin", "root", "system",
                      "service", "anonymous", "moderator", "three-thirteen"})
#: Who may challenge an account.
CHALLENGES_FROM = ("anyone", "bots", "nobody")


def create_account(stores: Stores, handle: str, bot: bool,
                   now: float | None = None) -> tuple[Account, str]:
    """A new account and its key (shown once); :class:`HandleTakenError` (409) for a
    handle taken in any case or reserved."""
    if not _HANDLE.fullmatch(handle):
        raise ValueError(f"not a handle: {handle!r}")  # the schema refuses it first
    if folded(handle) in RESERVED:
        raise HandleTakenError(f"the handle {handle!r} is reserved")
    key = new_key(handle)
    account = Account(handle, bot, hash_token(key), time.time() if now is None else now)
    if not stores.accounts.create(account):
        raise HandleTakenError(f"the handle {handle!r} is taken (handles are unique "
                               "regardless of case)")
    return account, key


def rotate_key(stores: Stores, account: Account) -> str:
    """A new key for ``account`` (shown once); the old one is refused from now on."""
    key = new_key(account.handle)
    if stores.accounts.update(account.handle, key_hash=hash_token(key)) is None:
        raise AuthError("this account was closed meanwhile")
    return key


def close_account(stores: Stores, account: Account) -> None:
    """Close ``account``: its key is refused, its handle stays taken and shown in its
    finished games."""
    stores.accounts.update(account.handle, closed=True, key_hash="")


def update_settings(stores: Stores, account: Account, **settings: Any) -> Account:
    """Change ``account``'s settings (who may challenge it, its webhook and secret)."""
    changed = stores.accounts.update(account.handle, **settings)
    if changed is None:
        raise AuthError("this account was closed meanwhile")
    return changed


@dataclass(frozen=True, slots=True)
class Profile:
    """An account's public profile (a reference bot's too): its handle as registered,
    whether it is a bot and a reference bot, and its rating in every preset."""

    handle: str
    bot: bool
    reference: bool
    ratings: dict[str, ShownRating]

    def to_json(self) -> dict[str, object]:
        return {"handle": self.handle, "bot": self.bot, "reference": self.reference,
                "ratings": {p: r.to_json() for p, r in self.ratings.items()}}


def profile(stores: Stores, handle: str) -> Profile:
    """The public profile of ``handle`` (a reference bot's too): 404 for none."""
    now = time.time()
    if folded(handle) in BOTS:
        return Profile(folded(handle), True, True,
                       ratings_of(stores, folded(handle), True, now))
    account = stores.accounts.load(handle)
    if account is None or account.closed:
        raise UnknownAccountError(f"there is no account {handle!r}")
    return Profile(account.handle, account.bot, False,
                   ratings_of(stores, account.handle, account.bot, now))
