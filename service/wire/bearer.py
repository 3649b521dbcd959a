"""Who a request's bearer is, from its ``Authorization`` header alone: the one parser of
the header, and the name its limits are counted under.

Why one parser: every limit per token or per account must count a bearer once, however
its header is spelled (``Bearer``, ``bearer``, ``BEARER``, extra spaces), and an account
once whichever of its keys it sends; a limit keyed on the header's bytes let one key
make eight times its challenges by spelling ``Bearer`` eight ways.
"""

from __future__ import annotations

from service.play import AuthError, account_credential, hash_token, is_account_key

__all__ = ["identity", "parse_bearer", "required_account_key", "required_bearer"]


def parse_bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case,
    spaces around either part), ``None`` without one; 401 for any other form."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise AuthError("the Authorization header must be 'Bearer <token>'")
    return token


def required_bearer(header: str | None) -> str:
    """The token of a route that needs one (a seat token or an account key): 401 without."""
    token = parse_bearer(header)
    if token is None:
        raise AuthError("this needs a seat token or an account key: send "
                        "Authorization: Bearer <token>")
    return token


def required_account_key(header: str | None) -> str:
    """The key of a route only an account may use (401 without one, or for a seat
    token); whether it is a valid key is the store's to say."""
    token = required_bearer(header)
    if not is_account_key(token):
        raise AuthError("this needs an account key: send Authorization: Bearer <key>")
    return token


def identity(header: str | None) -> str | None:
    """Whom a request's ``Authorization`` header names, for counting its limits: the
    account of an account key (its handle folded), else the seat token's hash, however
    the header is spelled; ``None`` without a bearer (or one that does not parse, which
    is refused anyway). No store is read: a key is counted under its account's name
    before it is checked, so only limits that refuse (never ones that only count, which
    could be spent in another's name) key on it before the key is authenticated
    (:func:`service.api.web.checked_identity`)."""
    try:
        token = parse_bearer(header)
    except AuthError:
        return None
    if token is None:
        return None
    if is_account_key(token):
        return account_credential(token.rpartition(".")[0])
    return hash_token(token)
