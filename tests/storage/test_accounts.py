"""The account store's promises (``service/storage/accounts.py``), on a real Redis and in
memory: a handle is taken once in any case, by a closed account too; only an open
account changes; an account's active and finished games page newest first, to the
millisecond, strictly after a cursor however many games share its millisecond; its
notes are numbered 1, 2, 3…, each note id kept once while the stream has had it lately,
their bodies as JSON keeps them; a note appended (or a wake) wakes the account's
watchers, only its own. (The finished index as an export pages through it, and its
trimming to a record lifetime: ``test_finished_index.py``.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from service.storage import Account, AccountStore, Stores
from service.storage.accounts import NOTE_IDS_KEPT
from tests.conftest import PATIENCE

ANN = Account("Ann", False, "k1", 1_700_000_000.125, challenges_from="bots",
              webhook_url="https://example.org/hook", webhook_secret="s3cret")


def test_a_handle_is_taken_once_in_any_case_and_loaded_as_it_was_stored(
        stores: Stores) -> None:
    accounts = stores.accounts
    assert accounts.load("ann") is None
    assert accounts.create(ANN) is True
    assert accounts.create(Account("ANN", True, "k2", 1.0)) is False
    assert accounts.load("aNN") == ANN
    assert accounts.create(Account("bot1", True, "k3", 2.0)) is True
    assert accounts.load("BOT1") == Account("bot1", True, "k3", 2.0)


def test_only_an_open_account_changes_and_a_closed_one_keeps_its_handle(
        stores: Stores) -> None:
    accounts = stores.accounts
    assert accounts.update("ann", key_hash="k9") is None  # no such account
    accounts.create(ANN)
    changed = accounts.update("ann", key_hash="k9", webhook_url=None, webhook_secret=None)
    assert changed == replace(ANN, key_hash="k9", webhook_url=None, webhook_secret=None)
    assert accounts.load("Ann") == changed
    closed = accounts.update("ANN", closed=True, challenges_from="nobody")
    assert closed == replace(changed, closed=True, challenges_from="nobody")
    assert accounts.update("ann", key_hash="k10") is None
    assert accounts.load("ann") == closed
    assert accounts.create(Account("aNn", False, "k11", 3.0)) is False


def test_active_games_page_newest_first_and_a_finished_game_moves_over(
        stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    for game_id, joined in (("g1", 100.0), ("g2", 300.0), ("g3", 200.0)):
        accounts.add_game("ann", game_id, joined)
    assert accounts.games("ANN", "active", None, 10) == [("g2", 300.0), ("g3", 200.0),
                                                        ("g1", 100.0)]
    assert accounts.games("ann", "active", (300.0, "g2"), 1) == [("g3", 200.0)]
    accounts.finish_game("aNN", "g3", 400.0)
    assert accounts.games("ann", "active", None, 10) == [("g2", 300.0), ("g1", 100.0)]
    assert accounts.games("ann", "finished", None, 10) == [("g3", 400.0)]
    assert accounts.finished_time("ann", "g3") == 400_000
    assert accounts.finished_time("ann", "g2") is None


def test_games_are_kept_to_the_millisecond_with_ties_in_reverse_id_order(
        stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    accounts.add_game("ann", "b", 100.0001)
    accounts.add_game("ann", "a", 100.0004)
    accounts.add_game("ann", "c", 99.9998)
    assert accounts.games("ann", "active", None, 10) == [("c", 100.0), ("b", 100.0),
                                                        ("a", 100.0)]
    assert accounts.games("ann", "active", (100.0, "c"), 10) == [("b", 100.0), ("a", 100.0)]


def test_paging_gives_every_game_once_however_many_share_the_cursors_millisecond(
        stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    joined = [f"g{n:03}" for n in range(130)]
    for game_id in joined:
        accounts.add_game("ann", game_id, 500.0)
    accounts.add_game("ann", "older", 400.0)
    seen: list[tuple[str, float]] = []
    while page := accounts.games("ann", "active", (seen[-1][1], seen[-1][0]) if seen
                                 else None, 10):
        seen += page
    assert seen == [(g, 500.0) for g in reversed(joined)] + [("older", 400.0)]


def test_a_handles_games_and_notes_are_kept_by_the_handle_alone(stores: Stores) -> None:
    """The indexes and the stream live beside the account (its hash tag), written by
    whoever has the handle: the account itself need not be read or exist."""
    accounts = stores.accounts
    accounts.add_game("Zed", "g1", 100.0)
    assert accounts.append("zed", [("n1", {"type": "challenge"})]) == [1]
    assert accounts.games("ZED", "active", None, 10) == [("g1", 100.0)]
    assert [n.seq for n in accounts.notes("zed", 0, 10)] == [1]
    assert accounts.create(Account("zed", False, "k", 1.0)) is True  # the handle is free
    assert accounts.newest("Zed") == 1


def test_notes_are_numbered_in_order_each_id_kept_once_their_bodies_as_json(
        stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    assert accounts.newest("ann") == 0 and accounts.notes("ann", 0, 10) == []
    assert accounts.append("ann", [("a", {"type": "x", "seats": (0, 1)}),
                                   ("b", {"type": "y"})]) == [1, 2]
    assert accounts.append("ANN", [("b", {"type": "again"}), ("c", {"type": "z"}),
                                   ("c", {"type": "twice"})]) == [3]
    assert accounts.append("ann", []) == []
    notes = accounts.notes("ann", 0, 10)
    assert [(n.seq, n.body) for n in notes] == [
        (1, {"type": "x", "seats": [0, 1]}), (2, {"type": "y"}), (3, {"type": "z"})]
    assert [n.seq for n in accounts.notes("ann", 1, 1)] == [2]
    assert accounts.notes("ann", 3, 10) == [] and accounts.newest("aNN") == 3


def test_a_note_id_is_kept_once_only_while_the_stream_has_had_it_lately(
        stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    accounts.append("ann", [("first", {"type": "x"})])
    accounts.append("ann", [(f"n{n}", {"type": "x"}) for n in range(NOTE_IDS_KEPT - 1)])
    assert accounts.append("ann", [("first", {"type": "again"})]) == []  # still lately
    accounts.append("ann", [("one more", {"type": "x"})])
    assert accounts.append("ann", [("first", {"type": "again"})]) == [NOTE_IDS_KEPT + 2]


def _woken(accounts: AccountStore, handle: str, act: Callable[[], object]) -> bool:
    """Whether a watcher of ``handle`` parked before ``act`` is woken by it."""
    with accounts.watch(handle) as watch:
        act()
        return watch.wait(0.5)


def test_a_note_or_a_wake_wakes_the_accounts_watchers_only(stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    assert _woken(accounts, "ann", lambda: accounts.append("ANN", [("a", {"type": "x"})]))
    assert not _woken(accounts, "ann", lambda: accounts.append("ann", [("a", {"type": "x"})]))
    assert not _woken(accounts, "bob", lambda: accounts.append("ann", [("b", {"type": "x"})]))
    assert _woken(accounts, "Ann", lambda: accounts.wake("aNN"))


def test_a_watcher_parked_in_another_thread_is_woken_by_the_next_note(stores: Stores) -> None:
    accounts = stores.accounts
    accounts.create(ANN)
    with accounts.watch("ann") as watch:
        seen = accounts.newest("ann")
        writer = threading.Timer(0.1, lambda: accounts.append("ann", [("a", {"type": "x"})]))
        writer.start()
        assert watch.wait(PATIENCE)
        writer.join()
    assert accounts.newest("ann") == seen + 1
