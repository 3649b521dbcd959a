"""The clients' bot-game loads (``service/storage/loads.py``), on a real Redis and in
memory: a game is admitted only while the client's total stays within the cap (else
the total held is answered and nothing added), the games over are forgotten first, in
the same step, so racing admissions never pass the cap together; each client's games are
its own."""

from __future__ import annotations

import threading

import pytest

from service.storage import Stores


def test_a_game_is_admitted_while_the_total_stays_within_the_cap(stores: Stores) -> None:
    loads = stores.loads
    assert loads.held("c1") == {}
    assert loads.admit("c1", "g1", 1.5, 4.0, [], 3600, 1000.25) is None
    assert loads.admit("c1", "g2", 2.5, 4.0, [], 3600, 1001.0) is None  # exactly the cap
    assert loads.admit("c1", "g3", 0.5, 4.0, [], 3600, 1002.0) == pytest.approx(4.0)
    assert loads.held("c1") == {"g1": (1.5, 1000.25), "g2": (2.5, 1001.0)}
    assert loads.admit("c2", "g4", 4.0, 4.0, [], 3600, 1003.0) is None  # another client
    assert loads.held("c2") == {"g4": (4.0, 1003.0)}


def test_the_games_over_are_forgotten_before_the_new_one_is_weighed(stores: Stores) -> None:
    loads = stores.loads
    loads.admit("c1", "g1", 3.0, 4.0, [], 3600, 1000.0)
    assert loads.admit("c1", "g2", 2.0, 4.0, ["g1", "never"], 3600, 1001.0) is None
    assert loads.held("c1") == {"g2": (2.0, 1001.0)}
    assert loads.admit("c1", "g3", 3.0, 4.0, ["g2"], 3600, 1002.0) is None
    assert loads.admit("c1", "g4", 3.0, 4.0, ["g2"], 3600, 1003.0) == 3.0  # g3 holds 3
    assert loads.held("c1") == {"g3": (3.0, 1002.0)}


def test_racing_admissions_never_pass_the_cap_together(stores: Stores) -> None:
    loads = stores.loads
    admitted: list[str] = []

    def admit(n: int) -> None:
        for m in range(10):
            if loads.admit("c1", f"g{n}.{m}", 1.0, 7.0, [], 3600, 1000.0) is None:
                admitted.append(f"g{n}.{m}")

    racers = [threading.Thread(target=admit, args=(n,)) for n in range(4)]
    for t in racers:
        t.start()
    for t in racers:
        t.join()
    assert len(admitted) == 7 and sorted(loads.held("c1")) == sorted(admitted)
