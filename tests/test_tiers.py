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

from tests.tiers import (
    BY_FIXTURE,
    BY_PATH,
    TIERS,
    TierError,
    may_select,
    starting_nothing,
    tier_of,
    tiers_in,
)

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


def test_a_file_may_hold_its_own_tier_the_tiers_of_its_named_tests_and_any_above() -> None:
    assert tiers_in("tests/api/test_games.py") == ("api", "process", "browser", "cluster")
    assert tiers_in("tests/engine/test_seats.py") == TIERS  # a fixture may raise any test
    assert tiers_in("tests/clients/test_typescript_client.py") == TIERS  # one test is fast


def test_m_passes_over_only_the_files_where_it_can_select_nothing() -> None:
    assert not may_select("fast and not slow", "tests/api/test_games.py")
    assert not may_select("fast", "tests/web/test_play_ui.py")
    assert may_select("fast and not slow", "tests/clients/test_typescript_client.py")
    assert may_select("not fast", "tests/engine/test_seats.py")
    assert may_select("slow", "tests/api/test_games.py")
    assert may_select("api or (process and not slow)", "tests/faults/test_worker_kill.py")
    assert may_select("fast and marker(x=1)", "tests/api/test_games.py")  # unsure: collected


class _Marked(dict[str, bool]):
    """The names of an ``-m`` expression: true for a test's markers, false otherwise."""

    def __missing__(self, name: str) -> bool:
        return False


@pytest.mark.parametrize("expression", ["fast and not slow", "fast", "api", "not fast",
                                        "process or browser", "slow and not cluster"])
def test_no_collected_test_that_m_selects_is_in_a_file_m_would_pass_over(
        request: pytest.FixtureRequest, expression: str) -> None:
    """Over this run's tests (every one, in ``make test``): for each that ``expression``
    selects by its markers, its file is one that ``-m expression`` collects."""
    passed_over = set()
    for item in request.session.items:
        path = item.nodeid.split("::", 1)[0]
        markers = _Marked({marker.name: True for marker in item.iter_markers()})
        if eval(expression, {}, markers) and not may_select(expression, path):
            passed_over.add(item.nodeid)
    assert passed_over == set()


def test_every_file_that_make_test_starts_first_exists() -> None:
    """``LONGEST_FILES`` (tests/conftest.py) orders ``make test``'s files by name: a file
    renamed or split away would silently fall back to the end of the run."""
    from tests.conftest import LONGEST_FILES

    assert [path for path in LONGEST_FILES if not (ROOT / path).is_file()] == []
