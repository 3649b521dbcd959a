"""Every test carries exactly one tier marker, and the table that gives them
(tests/tiers.py) names only tests that exist and tiers that pyproject.toml registers.

Why read the session's own items: they are the tests this run collected, marked as
they run, so the check costs nothing and covers whatever ``make test`` or ``make
test-fast`` selected, with no second collection of the suite."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tiers import BY_FIXTURE, BY_PATH, TIERS, TierError, starting_nothing, tier_of

ROOT = Path(__file__).resolve().parent.parent


def test_every_collected_test_carries_exactly_one_tier(request: pytest.FixtureRequest) -> None:
    wrong = {item.nodeid: names for item in request.session.items
             if len(names := [m.name for m in item.iter_markers() if m.name in TIERS]) != 1}
    assert wrong == {}


def test_the_tiers_are_the_registered_markers(pytestconfig: pytest.Config) -> None:
    registered = {line.split(":", 1)[0] for line in pytestconfig.getini("markers")}
    assert set(TIERS) <= registered
    assert set(BY_PATH.values()) | set(BY_FIXTURE.values()) <= set(TIERS)


def test_every_entry_of_the_table_names_a_folder_a_file_or_a_test_that_exists() -> None:
    missing = []
    for entry in BY_PATH:
        path, _, name = entry.partition("::")
        exists = (ROOT / path).is_dir() if path.endswith("/") else (ROOT / path).is_file()
        if exists and name:
            exists = re.search(rf"^def {re.escape(name)}\(", (ROOT / path).read_text(),
                               re.M) is not None
        if not exists:
            missing.append(entry)
    assert missing == []


def test_the_longest_entry_decides_and_a_fixture_only_raises_the_tier() -> None:
    assert tier_of("tests/storage/test_hub.py::test_x[plain]", []) == "api"
    assert tier_of("tests/storage/test_event_codec.py::test_x", []) == "fast"
    assert tier_of("tests/play/test_streams.py::test_x", ["store"]) == "fast"
    assert tier_of("tests/play/test_streams.py::test_x", ["redis_server"]) == "api"
    assert tier_of("tests/web/test_play_page.py::test_x", ["live_server"]) == "browser"
    chi = "tests/cluster/test_features_across_shards.py::test_the_chi_square_tail_matches_known_values"
    assert tier_of(chi, []) == "fast"
    assert tier_of(chi + "_too", []) == "cluster"  # an entry for one test names only it
    assert tier_of("tests/engine_more/test_x.py::test_y", []) == "fast"  # a folder ends in /


def test_inside_starting_nothing_a_process_or_a_connection_is_refused_and_noted() -> None:
    with starting_nothing() as tried:
        with pytest.raises(TierError):
            subprocess.run([sys.executable, "-c", "pass"], check=False)
        with socket.socket() as s, pytest.raises(TierError):
            s.connect(("127.0.0.1", 9))
    assert [t.split(" (")[0] for t in tried] == ["start a process", "connect to"]
