"""The table commitment: the seed's salt is made from a secret nonce and the table.

Why: every view shows ``seed_commitment = sha256_hex(seed_salt + ":" + seed)`` from the
first move, so the seed cannot be changed afterwards. Making the salt itself from the
table (the rules, each seat's name and bot at the start, the turn clock, whether the
creator chose the seed) extends that promise to the table: a record whose rules, decks,
names, bots, ``seeded_by_creator`` or ``rated`` were altered no longer gives back its own salt, so
the verifier rejects it. The nonce (128 random bits, hidden like the seed and revealed
with it at the end) keeps the salt unguessable, which is what the salt is for: a small
seed a creator chose cannot be found by trying seeds against the commitment.

The canonical form is JSON with sorted keys and no spaces (UTF-8), so a verifier in any
language can recompute it::

    seed_salt = sha256_hex("three-thirteen table:" + nonce + ":" + canonical(table))[:32]
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from service.engine import GameState

__all__ = ["seal", "table_of_record", "table_of_state", "table_salt"]


def _table(rules: Mapping[str, Any], players: list[dict[str, Any]], turn_seconds: int | None,
           seeded_by_creator: bool, rated: bool) -> dict[str, Any]:
    table = {"rules": dict(rules), "players": players, "turn_seconds": turn_seconds,
             "seeded_by_creator": seeded_by_creator}
    if rated:  # (absent from an unrated game's table)
        table["rated"] = True
    return table


def _seat(name: str | None, bot: str | None, account: str | None,
          account_bot: bool) -> dict[str, Any]:
    seat: dict[str, Any] = {"name": name, "bot": bot}
    if account is not None:  # (absent for a seat of no account)
        seat.update(account=account, account_bot=account_bot)
    return seat


def table_of_state(state: GameState) -> dict[str, Any]:
    """The table of a game as dealt (version 0: an open seat has no name yet)."""
    n = state.players
    bots = state.bots or (None,) * n
    accounts = state.accounts or (None,) * n
    programs = state.account_bots or (False,) * n
    return _table(state.rules.to_dict(),
                  [_seat(*seat) for seat in zip(state.names, bots, accounts, programs,
                                                strict=True)],
                  state.turn_seconds, state.seeded_by_creator, state.rated)


def table_of_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The table a record says the game was dealt with (a claimed seat started open)."""
    return _table(record["rules"],
                  [_seat(None, p.get("bot"), None, False) if p.get("claimed") else
                   _seat(p.get("name"), p.get("bot"), p.get("account"),
                         bool(p.get("account_bot")))
                   for p in record["players"]],
                  record.get("turn_seconds"), bool(record.get("seeded_by_creator")),
                  bool(record.get("rated")))


def table_salt(nonce: str, table: Mapping[str, Any]) -> str:
    """The salt of a game dealt with ``table``, from its secret ``nonce``."""
    canonical = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = f"three-thirteen table:{nonce}:{canonical}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def seal(state: GameState, nonce: str | None = None) -> GameState:
    """A freshly dealt ``state`` with its salt made from a fresh secret nonce and its table
    (the deal depends on the seed only, so it is unchanged)."""
    if state.version != 0:
        raise ValueError("a game is sealed as it is dealt, at version 0")
    nonce = secrets.token_hex(16) if nonce is None else nonce
    return replace(state, table_nonce=nonce, seed_salt=table_salt(nonce, table_of_state(state)))
