"""A finished game's record: what a player keeps, reads and checks, built from the event log.

Why from the event log: every version of a game is one *action* (a move, a claim, a
resignation, a time-out…) and each action leaves exactly one event that names it
(``draw``, ``discard``, ``went_out``, ``seat_claimed``, ``seat_resigned``, ``seat_back``,
``turn_timed_out``, ``game_aborted``, ``victory_claimed``); the other events (``round_started``, ``laid_down``, ``reshuffled``,
``round_ended``, ``game_finished``) are consequences the engine derives again on a replay.
So the list of actions, with the seed and the rules, *is* the game, and the record adds
what a reader wants without an engine: each round's deal facts, final arrangements,
scores and running totals, the winners and places, and the timestamps.

The format is documented in docs/records.md; :data:`RECORD_FORMAT` names it and is
checked by :mod:`.check`. Cards are in contract notation (``7H``, ``JK``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from service.core.instants import instant
from service.engine import Event, GameState
from service.engine.rounds import places, winners
from service.engine.seats import PLAYER, SERVICE, player_of, seat_kind
from service.engine.shoe import commitment

__all__ = ["ACTION_EVENTS", "RECORD_FORMAT", "actions_of", "build_record"]

RECORD_FORMAT = "three-thirteen-record/2"

#: The events that are actions, and how each becomes the action the replay applies.
ACTION_EVENTS = ("draw", "discard", "went_out", "seat_claimed", "seat_resigned",
                 "seat_back", "turn_timed_out", "game_aborted", "victory_claimed")
#: Events after the end (a rematch asked or started) are not part of the game played.
_AFTER_THE_END = ("rematch_asked", "rematch_started")


def _action(event: dict[str, Any]) -> dict[str, Any]:
    """The action an event names, with who made it (``by``: the seat's player, or the
    service for a bot, the stand-in or the clock)."""
    kind, seat = event["type"], event["seat"]
    if kind == "draw":
        return {"seat": seat, "by": event["by"], "type": "draw", "source": event["source"]}
    if kind == "discard":
        return {"seat": seat, "by": event["by"], "type": "discard", "card": event["card"]}
    if kind == "went_out":
        return {"seat": seat, "by": event["by"], "type": "go_out",
                "discard": event["discard"], "melds": event["melds"]}
    if kind == "seat_claimed":
        claimed = {"seat": seat, "by": PLAYER, "type": "claim", "name": event["name"]}
        if "account" in event:
            claimed.update(account=event["account"], account_bot=event["account_bot"])
        return claimed
    if kind == "seat_resigned":
        return {"seat": seat, "by": PLAYER, "type": "resign"}
    if kind == "seat_back":
        return {"seat": seat, "by": PLAYER, "type": "back"}
    if kind == "game_aborted":
        return {"seat": seat, "by": PLAYER, "type": "abort"}
    if kind == "victory_claimed":
        return {"seat": seat, "by": PLAYER, "type": "claim_victory", "against": event["against"]}
    return {"seat": seat, "by": SERVICE, "type": "time_out", "away": event["away"]}


def actions_of(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Every action of the game in order (one per version), from its public events."""
    out = []
    for event in events:
        if event.type in _AFTER_THE_END:
            break
        if event.type in ACTION_EVENTS:
            out.append(_action(event.for_seat(None)))
    return out


def _rounds(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Each round's deal facts (from ``round_started``) with its end (``round_ended``)."""
    rounds: list[dict[str, Any]] = []
    totals: list[int] | None = None
    for event in events:
        body = event.for_seat(None)
        if event.type == "round_started":
            rounds.append({"number": body["round"], "hand_size": body["hand_size"],
                           "wild_rank": body["wild_rank"], "dealer": body["dealer"],
                           "discard_top": body["discard_top"]})
        elif event.type == "round_ended":
            scores = [r["score"] for r in body["results"]]
            totals = scores if totals is None else [t + s for t, s in zip(totals, scores,
                                                                          strict=True)]
            rounds[-1].update({"went_out": body["went_out"], "reason": body["reason"],
                               "results": body["results"], "totals": totals})
    return rounds


def build_record(game_id: str, final: GameState, events: Sequence[Event], *,
                 created_at: float | None, finished_at: float) -> dict[str, Any]:
    """The record of the finished game ``final`` whose whole event log is ``events``."""
    if not final.finished:
        raise ValueError("a record is made of a finished game")
    claimed = {e.public["seat"] for e in events if e.type == "seat_claimed"}
    actions = actions_of(events)
    return {
        "format": RECORD_FORMAT,
        "game_id": game_id,
        "rules": final.rules.to_dict(),  # as stored: a replay resolves exactly these
        "decks": final.rules.decks_for(final.players),  # "auto" resolved for this table
        "players": [
            {"seat": s, "name": name, "kind": seat_kind(final, s),
             "bot": final.bots[s] if final.bots else None,
             "played_by": player_of(final, s), "claimed": s in claimed,
             "account": final.accounts[s] if final.accounts else None,
             "account_bot": bool(final.account_bots and final.account_bots[s])}
            for s, name in enumerate(final.names)
        ],
        "turn_seconds": final.turn_seconds,
        "rated": final.rated,
        "seed": final.seed,
        "seed_salt": final.seed_salt,
        "seed_commitment": commitment(final.seed, final.seed_salt),
        "table_nonce": final.table_nonce,
        "seeded_by_creator": final.seeded_by_creator,
        "first_dealer": final.first_dealer,
        "versions": len(actions),
        "actions": actions,
        "rounds": _rounds(events),
        "totals": list(final.totals()),
        "winners": list(winners(final)),
        # each seat's place from 1 (ties share one; a resigned seat below all who did not):
        # what a rating or a tournament reads
        "places": list(places(final)),
        "finish_reason": final.finish_reason,
        "created_at": instant(created_at),
        "finished_at": instant(finished_at),
    }
