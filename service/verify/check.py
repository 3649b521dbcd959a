"""Checking a record: is it the game its seed and actions make, to the last card and point?

:func:`verify` checks the seed commitment and the table it seals (:mod:`.table`: the
rules, decks, names, bots, clock and ``seeded_by_creator``), re-deals from the seed,
replays every action with the engine as the actor the record names (:mod:`.replay`),
re-runs every bot move's decision (:mod:`.bots`) and compares what the replay gives with what the record says: each round's deal facts,
each player's melds, lay-offs, deadwood and score, the running totals, the totals and the
winners. Each difference is one line naming where it is (the round, the seat, the
action, the card or the score); an empty list means the record is the game its seed and
actions make.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.core.cards import card_name, rank_name
from service.engine import GameState, opening_events
from service.engine.events import round_result_dict
from service.engine.rounds import places, winners
from service.engine.seats import seat_kind
from service.engine.serialize import rules_from_json
from service.engine.shoe import RandomStream, commitment

from .bots import SeatLogs, bot_move_difference
from .record import RECORD_FORMAT
from .replay import ReplayError, initial_state, replay_steps
from .table import table_of_record, table_salt

__all__ = ["verify"]

_RESULT_FIELDS = ("melds", "layoffs", "deadwood", "score")


def _deal_facts(state: GameState) -> dict[str, Any]:
    return {"number": state.round_index + 1, "hand_size": state.hand_size,
            "wild_rank": rank_name(state.wild_rank), "dealer": state.dealer,
            "discard_top": card_name(state.discard[0]) if state.discard else None}


def _compare_deal(number: int, said: Mapping[str, Any], made: dict[str, Any]) -> list[str]:
    return [f"round {number}: {key} is {said.get(key)!r} in the record, {value!r} on replay"
            for key, value in made.items() if said.get(key) != value]


def _compare_end(said: Mapping[str, Any], state: GameState, totals: list[int]) -> list[str]:
    assert state.last_round is not None
    made = round_result_dict(state.last_round)
    number = made["number"]
    out = [f"round {number}: {key} is {said.get(key)!r} in the record, {made[key]!r} on replay"
           for key in ("went_out", "reason") if said.get(key) != made[key]]
    results = said.get("results") or []
    for seat, mine in enumerate(made["results"]):
        theirs = results[seat] if seat < len(results) else {}
        for key in _RESULT_FIELDS:
            if theirs.get(key) != mine[key]:
                out.append(f"round {number}, seat {seat}: {key} {theirs.get(key)!r} in the "
                           f"record, {mine[key]!r} on replay")
    if said.get("totals") != totals:
        out.append(f"round {number}: running totals {said.get('totals')!r} in the record, "
                   f"{totals!r} on replay")
    return out


def _check_start(record: Mapping[str, Any]) -> list[str]:
    out = []
    if record.get("format") != RECORD_FORMAT:
        out.append(f"format is {record.get('format')!r}, not {RECORD_FORMAT!r}")
    made = commitment(str(record.get("seed")), str(record.get("seed_salt")))
    if record.get("seed_commitment") != made:
        out.append(f"seed commitment {record.get('seed_commitment')!r} is not "
                   f"sha256(salt:seed) = {made!r}")
    nonce = record.get("table_nonce")
    if not isinstance(nonce, str):
        out.append("the record has no table_nonce: its table is not sealed by the salt")
    elif table_salt(nonce, table_of_record(record)) != record.get("seed_salt"):
        out.append("the seed's salt does not seal this table: the rules, a name, a bot, the "
                   "turn clock or seeded_by_creator differ from the game that was dealt")
    decks = rules_from_json(record["rules"]).decks_for(len(record["players"]))
    if record.get("decks") != decks:
        out.append(f"decks is {record.get('decks')!r} in the record, {decks} by its rules")
    return out


def verify(record: Mapping[str, Any]) -> list[str]:
    """Every difference between the record and the replay of its seed and actions."""
    out: list[str] = []
    try:
        out += _check_start(record)
        players = len(record["players"])
        dealer = RandomStream(str(record["seed"]), "first-dealer").below(players)
        if record.get("first_dealer") != dealer:
            out.append(f"first dealer is {record.get('first_dealer')!r} in the record, "
                       f"{dealer} from the seed")
        rounds = list(record["rounds"])
        state = initial_state(record)
        out += _compare_deal(1, rounds[0] if rounds else {}, _deal_facts(state))
        logs = SeatLogs(players, opening_events(state))
        totals = [0] * players
        for step in replay_steps(record, state):
            if (wrong := bot_move_difference(step.index, step.action, step.before, logs)):
                out.append(wrong)
            logs.add(step.events)
            state, new = step.before, step.after
            if new.round_index != state.round_index or (new.finished and not state.finished):
                if _round_ended(state, new):
                    assert new.last_round is not None
                    number = new.last_round.number
                    totals = [t + r.score for t, r in zip(totals, new.last_round.results,
                                                          strict=True)]
                    said = rounds[number - 1] if number <= len(rounds) else {}
                    out += _compare_end(said, new, totals)
                if not new.finished:
                    number = new.round_index + 1
                    said = rounds[number - 1] if number <= len(rounds) else {}
                    out += _compare_deal(number, said, _deal_facts(new))
            state = new
    except ReplayError as exc:
        return [*out, str(exc)]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return [*out, f"the record is not well formed: {type(exc).__name__}: {exc}"]
    return out + _check_end(record, state, rounds)


def _round_ended(before: GameState, after: GameState) -> bool:
    """Whether the move from ``before`` to ``after`` ended a round (not a game ended by
    resignations, which leaves the round in play unscored)."""
    def number(state: GameState) -> int:
        return 0 if state.last_round is None else state.last_round.number
    return number(after) != number(before)


def _check_end(record: Mapping[str, Any], state: GameState, rounds: list[Any]) -> list[str]:
    out = []
    if not state.finished:
        out.append(f"the actions end at version {state.version} in round "
                   f"{state.round_index + 1}, before the game is finished")
        return out
    played = state.round_index + 1  # every round, or those begun when the others resigned
    if len(rounds) != played:
        out.append(f"the record has {len(rounds)} rounds, the game {played}")
    for key, made in (("totals", list(state.totals())), ("winners", list(winners(state))),
                      ("places", list(places(state))),
                      ("versions", state.version), ("finish_reason", state.finish_reason)):
        if record.get(key) != made:
            out.append(f"{key} {record.get(key)!r} in the record, {made!r} on replay")
    names = [p.get("name") for p in record["players"]]
    if names != list(state.names):
        out.append(f"player names {names!r} in the record, {list(state.names)!r} on replay")
    for seat, player in enumerate(record["players"]):
        if player.get("kind") != seat_kind(state, seat):
            out.append(f"seat {seat}: kind {player.get('kind')!r} in the record, "
                       f"{seat_kind(state, seat)!r} on replay")
    return out
