"""The stream tickets (``service/storage/tickets.py``), on a real Redis and in memory: a
ticket is stored once under its hash, taken once (so it opens one stream at most), per
game, and gone after its TTL."""

from __future__ import annotations

import threading
import time

from service.storage import Stores


def test_a_ticket_is_stored_once_and_taken_once(stores: Stores) -> None:
    tickets = stores.tickets
    assert tickets.put_ticket("g1", "h1", "seat:0", 60) is True
    assert tickets.put_ticket("g1", "h1", "seat:1", 60) is False  # that hash is stored
    assert tickets.take_ticket("g2", "h1") is None  # another game's tickets are its own
    assert tickets.take_ticket("g1", "h1") == "seat:0"
    assert tickets.take_ticket("g1", "h1") is None
    assert tickets.put_ticket("g1", "h1", "seat:1", 60) is True  # taken: the hash is free
    assert tickets.take_ticket("g1", "nope") is None


def test_racing_takes_of_one_ticket_get_it_once(stores: Stores) -> None:
    tickets = stores.tickets
    for n in range(20):
        tickets.put_ticket("g1", f"h{n}", f"v{n}", 60)
    got: list[str] = []

    def take() -> None:
        for n in range(20):
            if (value := tickets.take_ticket("g1", f"h{n}")) is not None:
                got.append(value)

    racers = [threading.Thread(target=take) for _ in range(4)]
    for t in racers:
        t.start()
    for t in racers:
        t.join()
    assert sorted(got) == sorted(f"v{n}" for n in range(20))


def test_a_ticket_is_gone_after_its_ttl(stores: Stores) -> None:
    tickets = stores.tickets
    assert tickets.put_ticket("g1", "h1", "seat:0", 1)
    time.sleep(1.2)
    assert tickets.take_ticket("g1", "h1") is None
    assert tickets.put_ticket("g1", "h1", "seat:1", 60) is True
