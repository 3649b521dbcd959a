"""Documents stored before the stores took typed values (``service/storage/documents.py``)
read back as they were, on a real Redis (raw bytes in the stores' own keys) and through
each document's codec: each literal below is a document in the format the code before
wrote (its keys in that code's order, as a run of that code stored them; the rules
shortened), and an unchanged document is written back byte for byte, so a
compare-and-set and any reader of the keys see no change.
A tournament stored before invitations existed reads with none pending."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import pytest
import redis

from service.storage import (
    Challenge,
    HistoryPoint,
    LadderEntry,
    MatchRecord,
    RatingResult,
    SeekRecord,
    SetAside,
    StoredRating,
    Stores,
    Tournament,
)
from service.storage.documents import dumps, loads

CHALLENGE = (
    b'{"challenge_id":"x000000000000004","status":"accepted","challenger":"ann",'
    b'"to":["bob","cid"],"accepted":["bob","cid"],"declined_by":null,'
    b'"rules":{"preset":"classic","min_players":2},"turn_seconds":60,"rated":true,'
    b'"created":1700000008.625,"expires":1700000608.625,"game_id":"x000000000000005"}')

SWISS = (
    b'{"tournament_id":"x00000000008","name":"t-swiss","creator":"ann","system":"swiss",'
    b'"seats":2,"total_rounds":2,"status":"finished","open":false,'
    b'"rules":{"preset":"classic"},"turn_seconds":600,"rated":true,"entrants":["ann","bob"],'
    b'"invited":[],"created":1700000023.625,"starts_at":null,"start_asked":true,'
    b'"started":1700000130.625,"finished":1700000152.625,"schedule":null,"rounds":['
    b'{"round":1,"byes":[],"tables":[{"game_id":"x00000000008-r1-t0","players":["ann","bob"]}]},'
    b'{"round":2,"byes":[],"tables":[{"game_id":"x00000000008-r2-t0","players":["bob","ann"]}]}'
    b'],"results":{"x00000000008-r1-t0":{"game_id":"x00000000008-r1-t0",'
    b'"handles":["bob","ann"],"totals":[0,0],"resigned":[false,true],"zero_rounds":[0,0],'
    b'"zero_rounds_break_ties":true,"aborted":false,"first_seat":1},'
    b'"x00000000008-r2-t0":{"game_id":"x00000000008-r2-t0","handles":["bob","ann"],'
    b'"totals":[0,0],"resigned":[true,false],"zero_rounds":[0,0],'
    b'"zero_rounds_break_ties":true,"aborted":false,"first_seat":0}}}')

ROUND_ROBIN = (
    b'{"tournament_id":"x00000000009","name":"t-round_robin","creator":"ann",'
    b'"system":"round_robin","seats":2,"total_rounds":1,"status":"running","open":true,'
    b'"rules":{"preset":"classic"},"turn_seconds":600,"rated":true,"entrants":["bob","cid"],'
    b'"invited":[],"created":1700000055.625,"starts_at":1700000060,"start_asked":false,'
    b'"started":1700000163.125,"finished":null,"schedule":[{"tables":[["cid","bob"]],'
    b'"byes":[]}],"rounds":[{"round":1,"byes":[],"tables":[{"game_id":"x00000000009-r1-t0",'
    b'"players":["cid","bob"]}]}],"results":{}}')

#: a tournament stored before invitations: no "invited"
BEFORE_INVITATIONS = (
    b'{"tournament_id":"x00000000010","name":"old","creator":"ann","system":"swiss",'
    b'"seats":2,"total_rounds":3,"status":"open","open":true,"rules":{"preset":"classic"},'
    b'"turn_seconds":600,"rated":false,"entrants":["ann"],"created":1700000000.5,'
    b'"starts_at":null,"start_asked":false,"started":null,"finished":null,"schedule":null,'
    b'"rounds":[],"results":{}}')

RATING = (b'{"rating":1486.9569791003114,"deviation":191.64840815093848,'
          b'"volatility":0.060010028693184884,"games":4,"at":1700000067.625}')

POINT = (b'{"game_id":"x000000000000005","at":"2023-11-14T22:13:34.625Z",'
         b'"rating":1376.3409691816016,"deviation":253.40459715529764,"place":2,"players":3,'
         b'"opponents":["bob","cid"]}')

COMPUTED = (
    b'{"preset":"classic","at":1700000014.625,"players":2,"seats":[{"handle":"ann",'
    b'"bot":false,"frozen":false,"place":2,"games":0,"before":{"rating":1500.0,'
    b'"deviation":350.0,"volatility":0.06},"after":{"rating":1376.3409691816016,'
    b'"deviation":253.40459715529764,"volatility":0.05999737193609898}},{"handle":"greedy",'
    b'"bot":true,"frozen":true,"place":1,"games":0,"before":{"rating":1500.0,'
    b'"deviation":60.0,"volatility":0.06},"after":{"rating":1500.0,"deviation":60.0,'
    b'"volatility":0.06}}]}')

#: a point kept before points named the opponents
POINT_BEFORE_OPPONENTS = (b'{"game_id":"x000000000000003","at":"2023-11-14T22:13:30.125Z",'
                          b'"rating":1600.5,"deviation":200.25,"place":1,"players":2}')

ASIDE = b'{"why":"KeyError: \'places\'","at":1700000070.25}'

#: a new seek as the code before gave it to the board to add
NEW_SEEK = b'{"name":"ann","th":"acct:ann","t":60,"r":true}'

#: a match record as the code before wrote it (the memory board's order: the Redis board's
#: script writes the same)
MATCH = (b'{"rules":{"preset":"classic"},"names":["ann","bob"],"ths":["acct:ann","h-bob"],'
         b'"turn_seconds":60,"rated":false}')

LADDER_ENTRY = b'{"min_players":2,"max_players":4,"games_at_once":1,"joined":1700000000.25}'

DOCUMENTS: dict[str, tuple[bytes, Callable[[Mapping[str, Any]], Any]]] = {
    "challenge": (CHALLENGE, Challenge.from_json),
    "swiss": (SWISS, Tournament.from_json),
    "round robin": (ROUND_ROBIN, Tournament.from_json),
    "rating": (RATING, StoredRating.from_json),
    "history point": (POINT, HistoryPoint.from_json),
    "history point before opponents": (POINT_BEFORE_OPPONENTS, HistoryPoint.from_json),
    "computation": (COMPUTED, RatingResult.from_json),
    "set aside": (ASIDE, SetAside.from_json),
    "new seek": (NEW_SEEK, SeekRecord.from_json),
    "match record": (MATCH, MatchRecord.from_json),
    "ladder entry": (LADDER_ENTRY, LadderEntry.from_json),
}


@pytest.mark.parametrize("name", DOCUMENTS)
def test_a_document_as_the_code_before_wrote_it_is_written_back_byte_for_byte(
        name: str) -> None:
    raw, parse = DOCUMENTS[name]
    assert dumps(loads(parse, raw)) == raw


def test_a_tournament_from_before_invitations_reads_with_none_pending() -> None:
    old = loads(Tournament.from_json, BEFORE_INVITATIONS)
    assert old.invited == () and old.entrants == ("ann",) and old.open
    assert dumps(old) == BEFORE_INVITATIONS.replace(b'"created"', b'"invited":[],"created"')


def test_challenges_and_tournaments_stored_before_load_and_change_in_place_on_redis(
        on_redis: Stores, contract_db: redis.Redis) -> None:
    keys = {"ttt:{ch:x000000000000004}:challenge": CHALLENGE,
            "ttt:{tn:x00000000008}:tournament": SWISS,
            "ttt:{tn:x00000000009}:tournament": ROUND_ROBIN,
            "ttt:{tn:x00000000010}:tournament": BEFORE_INVITATIONS}
    for key, raw in keys.items():
        contract_db.set(key, raw, ex=600)
    challenge = on_redis.challenges.load("x000000000000004")
    assert challenge is not None and challenge.status == "accepted"
    assert challenge.accepted == ("bob", "cid") and challenge.game_id == "x000000000000005"
    swiss = on_redis.tournaments.load("x00000000008")
    assert swiss is not None and swiss.status == "finished" and len(swiss.results) == 2
    assert [r.round for r in swiss.rounds] == [1, 2] and swiss.byes == []
    robin = on_redis.tournaments.load("x00000000009")
    assert robin is not None and robin.schedule is not None
    assert robin.schedule[0].tables == (("cid", "bob"),) and robin.starts_at == 1700000060
    # an unchanged document written back leaves the very bytes (a compare-and-set of a
    # document stored before goes through on its first try)
    on_redis.challenges.change("x000000000000004", dataclasses.replace)
    on_redis.tournaments.change("x00000000008", dataclasses.replace)
    on_redis.tournaments.change("x00000000009", dataclasses.replace)
    for key in list(keys)[:3]:
        assert contract_db.get(key) == keys[key]
        assert contract_db.ttl(key) > 0
    joined = on_redis.tournaments.change("x00000000010", lambda t: dataclasses.replace(
        t, entrants=(*t.entrants, "bob")))
    assert joined is not None and joined.entrants == ("ann", "bob") and joined.invited == ()


def test_ratings_stored_before_load_on_redis(on_redis: Stores,
                                             contract_db: redis.Redis) -> None:
    contract_db.hset("ttt:{acct:bob}:ratings", "classic", RATING)
    contract_db.rpush("ttt:{acct:bob}:history:classic", POINT)
    contract_db.hset("ttt:{ratings}:computed", "x000000000000005", COMPUTED)
    contract_db.hset("ttt:{ratings}:aside", "x000000000000005", ASIDE)
    stored = on_redis.ratings.ratings("Bob")["classic"]
    assert stored.games == 4 and stored.value.rating == 1486.9569791003114
    assert on_redis.ratings.history("bob", "classic", 0, 10) == [
        loads(HistoryPoint.from_json, POINT)]
    computed = on_redis.ratings.computed("x000000000000005")
    assert computed is not None and computed.players == 2
    assert [(s.handle, s.frozen) for s in computed.seats] == [("ann", False), ("greedy", True)]
    assert on_redis.ratings.aside() == {"x000000000000005": SetAside("KeyError: 'places'",
                                                                      1700000070.25)}


def test_seeks_and_matches_stored_before_clocks_load_and_match_on_redis(
        on_redis: Stores, contract_db: redis.Redis) -> None:
    """A seek kept before seeks had clocks, ``rated`` or holds (``{name, th, ag}``) reads
    as one asking for no clock, unrated, held by nothing, and is matched by the board's
    script with a new seek; a match record of then reads with no clock, unrated."""
    pool = "0123456789abcdef.2"
    contract_db.hset(f"ttt:{{{pool}}}:seeks", mapping={
        "k-old": b'{"name":"old","th":"h-old","ag":1}', "arrivals": 1,
        "rules": b'{"preset":"classic"}',
        "m:g-old": b'{"rules":{"preset":"classic"},"names":["x","y"],"ths":["h-x","h-y"]}'})
    contract_db.zadd(f"ttt:{{{pool}}}:queue", {"k-old": 4_000_000_000_000})
    entry = on_redis.seeks.get(pool, "k-old")
    assert entry.record == SeekRecord("old", "h-old", None, False, arrival=1)
    assert entry.arrivals == 1 and entry.expires == 4_000_000_000.0
    assert on_redis.seeks.match_record(pool, "g-old") == MatchRecord(
        {"preset": "classic"}, ("x", "y"), ("h-x", "h-y"), None, False)
    matching = on_redis.seeks.add(pool, "k-new", SeekRecord("new", "h-new", 60, False),
                                  4_100_000_000.0, 2, "g-new", b'{"preset":"classic"}',
                                  1_700_000_000.0)
    assert matching.matched == ["k-old", "k-new"]
    assert on_redis.seeks.match_record(pool, "g-new") == MatchRecord(
        {"preset": "classic"}, ("old", "new"), ("h-old", "h-new"), 60, False)
    matched = on_redis.seeks.get(pool, "k-old").record
    assert matched is not None and (matched.game, matched.seat) == ("g-new", 0)
