"""Who a bearer is: the credential a seat is held by, from a seat token or an account key.

A seat is held by one credential, stored with the game (``token_hashes``): the sha256 of
a random seat token (anonymous play: shown once, stored only as its hash), or
``account:<handle folded>`` for a seat an account holds. A request's bearer is turned
into a credential once, here, and every function of the service layer then compares
credentials, whatever kind of bearer sent the request:

* a seat token is hashed (a leaked store holds no credentials);
* an account key (``<handle>.<secret>``, the handle up front so it is found with one
  read) is checked against the account's stored hash: a rotated key, a closed account
  or a forged one is refused at once (:class:`AuthError`, a 401).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from service.storage import Account, GameRecord, Stores, folded

from .errors import AuthError

__all__ = ["ACCOUNT_PREFIX", "account_credential", "authenticate", "hash_token", "identify",
           "is_account_key", "new_key", "seat_of", "seat_of_digest"]

ACCOUNT_PREFIX = "account:"


def hash_token(token: str) -> str:
    """Tokens and keys are stored only as their sha256."""
    return hashlib.sha256(token.encode()).hexdigest()


def account_credential(handle: str) -> str:
    """The credential of the seats an account holds."""
    return f"{ACCOUNT_PREFIX}{folded(handle)}"


def new_key(handle: str) -> str:
    """A fresh account key: the handle, then 256 random bits (URL-safe, no dots)."""
    return f"{handle}.{secrets.token_urlsafe(32)}"


def authenticate(stores: Stores, key: str) -> Account:
    """The open account whose key this is (:class:`AuthError` otherwise)."""
    handle, dot, _ = key.rpartition(".")
    account = stores.accounts.load(handle) if dot and handle else None
    if account is None or account.closed or not hmac.compare_digest(account.key_hash,
                                                                      hash_token(key)):
        raise AuthError("this key belongs to no open account (closed, rotated or mistyped)")
    return account


def is_account_key(bearer: str) -> bool:
    """Whether ``bearer`` is an account key (``<handle>.<secret>``): seat tokens have no
    dots."""
    return "." in bearer


def identify(stores: Stores, bearer: str | None) -> str | None:
    """The credential ``bearer`` stands for (``None``: no bearer, a spectator)."""
    if bearer is None:
        return None
    if is_account_key(bearer):
        return account_credential(authenticate(stores, bearer).handle)
    return hash_token(bearer)


def seat_of(record: GameRecord, who: str | None) -> int | None:
    """The seat the credential ``who`` holds (:mod:`.credentials`); ``None`` without one
    (a spectator)."""
    if who is None:
        return None
    return seat_of_digest(record, who)


def seat_of_digest(record: GameRecord, who: str) -> int:
    """The seat held by the credential ``who`` (:class:`AuthError` if none)."""
    seat = None
    for s, stored in enumerate(record.token_hashes):
        # compare_digest on every seat: the time taken does not reveal which one matched
        if stored is not None and hmac.compare_digest(stored, who):
            seat = s
    if seat is None:
        raise AuthError("this token belongs to no seat of this game")
    return seat
