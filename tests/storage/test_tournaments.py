"""The tournament store's listings by status (``service/storage/tournaments.py``), on a real
Redis and in memory: newest first, to the millisecond (tournaments listed in one
millisecond in reverse id order, as Redis orders a sorted set's ties backwards), a page
after a cursor holding only older ones, and a relist moving a tournament from one
listing to another. (The documents and the accounts' indexes are the challenges' kind:
``test_challenges.py`` holds both stores to those promises.)"""

from __future__ import annotations

from service.storage import Stores


def test_a_listing_is_newest_first_and_a_page_after_a_cursor_only_older(
        stores: Stores) -> None:
    listings = stores.tournaments
    for tid, at in (("t1", 100.0), ("t2", 300.0), ("t3", 200.0), ("t4", 400.0)):
        listings.relist("open", tid, at)
    assert listings.listed("open", None, 10) == [("t4", 400.0), ("t2", 300.0),
                                                 ("t3", 200.0), ("t1", 100.0)]
    assert listings.listed("open", None, 2) == [("t4", 400.0), ("t2", 300.0)]
    assert listings.listed("open", 300.0, 10) == [("t3", 200.0), ("t1", 100.0)]
    assert listings.listed("running", None, 10) == []


def test_a_listing_keeps_times_to_the_millisecond_with_ties_in_reverse_id_order(
        stores: Stores) -> None:
    listings = stores.tournaments
    listings.relist("open", "b", 100.0001)
    listings.relist("open", "a", 100.0004)
    listings.relist("open", "c", 100.0002)
    listings.relist("open", "d", 99.9996)  # rounds up into the same millisecond
    assert listings.listed("open", None, 10) == [("d", 100.0), ("c", 100.0), ("b", 100.0),
                                                 ("a", 100.0)]
    assert listings.listed("open", 100.0003, 10) == []  # older than that millisecond only


def test_a_relist_moves_a_tournament_to_its_new_status_at_its_new_time(
        stores: Stores) -> None:
    listings = stores.tournaments
    listings.relist("open", "t1", 100.0)
    listings.relist("open", "t2", 200.0)
    listings.relist("running", "t1", 500.0, unlist="open")
    assert listings.listed("open", None, 10) == [("t2", 200.0)]
    assert listings.listed("running", None, 10) == [("t1", 500.0)]
    listings.relist("running", "t1", 600.0)  # listed again: at its new time, once
    assert listings.listed("running", None, 10) == [("t1", 600.0)]
    listings.relist("finished", "t3", 700.0, unlist="running")  # not on it: nothing else
    assert listings.listed("running", None, 10) == [("t1", 600.0)]
