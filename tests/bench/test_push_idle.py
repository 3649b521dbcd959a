"""``make bench-push``'s idle clients: how many connections each source address takes."""

from __future__ import annotations

from tests.bench.push_idle import PER_ADDRESS, spread


def test_connections_are_spread_evenly_over_as_few_addresses_as_hold_them() -> None:
    shares = spread(100_000, 19_800)
    assert [address for address, _ in shares] == [f"127.0.0.{i}" for i in range(2, 8)]
    assert sum(n for _, n in shares) == 100_000
    assert max(n for _, n in shares) - min(n for _, n in shares) <= 1
    assert max(n for _, n in shares) <= 19_800


def test_no_address_is_given_more_than_its_ephemeral_ports_allow() -> None:
    shares = spread(65_000, 1_000_000)  # a process could hold them all; an address cannot
    assert all(n <= PER_ADDRESS for _, n in shares)
    assert len(shares) == 4 and sum(n for _, n in shares) == 65_000


def test_a_small_run_is_one_process_from_one_address() -> None:
    assert spread(2_000, 19_800) == [("127.0.0.2", 2_000)]
    assert spread(0, 19_800) == []
