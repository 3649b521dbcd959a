"""The state as compact JSON-compatible data, and back, exactly.

Cards stay integers, the rules are stored resolved (``Rules.to_dict()``), and
structures are positional lists rather than objects, so a 4-player state in
round 11 stays well under 4 KB of JSON. ``from_dict(to_dict(s)) == s`` for
every state; ``schema_version`` lets a later engine read older stored games.
"""

from __future__ import annotations

from typing import Any

from service.core.rules import Rules, resolve_rules

from .state import GameState, RoundResult, SeatResult, TableMeld

__all__ = ["SCHEMA_VERSION", "from_dict", "rules_from_json", "to_dict"]

SCHEMA_VERSION = 1


def _meld_pairs(pairs: tuple[tuple[int, tuple[int, ...]], ...]) -> list[Any]:
    return [[i, list(cards)] for i, cards in pairs]


def _pairs(data: list[Any]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    return tuple((int(i), tuple(cards)) for i, cards in data)


def to_dict(state: GameState) -> dict[str, Any]:
    """The whole state (secrets included: this is for storage, never for players)."""
    last = state.last_round
    return {
        "schema_version": SCHEMA_VERSION,
        "rules": state.rules.to_dict(),
        "names": list(state.names),
        "seed": state.seed,
        "salt": state.seed_salt,
        "by_creator": state.seeded_by_creator,
        "dealer0": state.first_dealer,
        "version": state.version,
        "seq": state.event_seq,
        "status": state.status,
        "round": state.round_index,
        "reshuffles": state.reshuffles,
        "hands": [list(h) for h in state.hands],
        "stock": list(state.stock),
        "discard": list(state.discard),
        "seat": state.current_seat,
        "phase": state.phase,
        "out": state.went_out,
        "table": [[m.seat, list(m.cards), _meld_pairs(m.layoffs)] for m in state.table],
        "arranged": list(state.arranged),
        "scores": [list(s) for s in state.scores],
        "kinds": list(state.seat_kinds),
        "bots": list(state.bots),
        "clock": state.turn_seconds,
        "deadline": state.turn_deadline,
        "timeouts": list(state.timeouts),
        "rematch": [list(state.rematch_asked), state.rematch_game],
        "turns": state.turns,
        "timed_out": state.turn_timed_out,
        "nonce": state.table_nonce,
        "end": state.finish_reason,
        "accounts": list(state.accounts),
        "account_bots": list(state.account_bots),
        "rated": state.rated,
        "played": list(state.played),
        "last": None
        if last is None
        else [
            last.number,
            last.wild_rank,
            last.went_out,
            last.reason,
            [
                [
                    r.seat,
                    [list(m) for m in r.melds],
                    _meld_pairs(r.layoffs),
                    list(r.deadwood),
                    r.score,
                ]
                for r in last.results
            ],
        ],
    }


def rules_from_json(spec: Any) -> Rules:
    """:func:`resolve_rules` for parsed JSON (dicts, lists, strings, numbers, booleans,
    null): the stored rules of a game, or a client's rules spec."""
    return resolve_rules(spec)


def from_dict(data: dict[str, Any]) -> GameState:
    """Rebuild a state stored by :func:`to_dict`; a wrong schema is a ``ValueError``."""
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"unsupported game state schema_version {version!r}")
    last = data["last"]
    return GameState(
        rules=rules_from_json(data["rules"]),
        names=tuple(data["names"]),
        seed=data["seed"],
        seed_salt=data["salt"],
        seeded_by_creator=data["by_creator"],
        first_dealer=data["dealer0"],
        version=data["version"],
        event_seq=data["seq"],
        status=data["status"],
        round_index=data["round"],
        reshuffles=data["reshuffles"],
        hands=tuple(tuple(h) for h in data["hands"]),
        stock=tuple(data["stock"]),
        discard=tuple(data["discard"]),
        current_seat=data["seat"],
        phase=data["phase"],
        went_out=data["out"],
        table=tuple(TableMeld(s, tuple(c), _pairs(lo)) for s, c, lo in data["table"]),
        arranged=tuple(data["arranged"]),
        scores=tuple(tuple(s) for s in data["scores"]),
        # absent from games stored before seat kinds existed: every seat a human
        seat_kinds=tuple(data.get("kinds", ())),
        bots=tuple(data.get("bots", ())),
        turn_seconds=data.get("clock"),
        turn_deadline=data.get("deadline"),
        timeouts=tuple(data.get("timeouts", ())),
        rematch_asked=tuple(data.get("rematch", [[], None])[0]),
        rematch_game=data.get("rematch", [[], None])[1],
        turns=data.get("turns", 0),
        turn_timed_out=data.get("timed_out", False),
        table_nonce=data.get("nonce"),
        finish_reason=data.get("end"),
        accounts=tuple(data.get("accounts", ())),
        account_bots=tuple(data.get("account_bots", ())),
        rated=data.get("rated", False),
        # absent from games stored before aborts existed: every seat counts as having
        # played, so such a game cannot be aborted
        played=tuple(data["played"]) if "played" in data else tuple(range(len(data["names"]))),
        last_round=None
        if last is None
        else RoundResult(
            number=last[0],
            wild_rank=last[1],
            went_out=last[2],
            reason=last[3],
            results=tuple(
                SeatResult(s, tuple(tuple(m) for m in melds), _pairs(lo), tuple(dw), score)
                for s, melds, lo, dw, score in last[4]
            ),
        ),
    )
