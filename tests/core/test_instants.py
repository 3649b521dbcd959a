"""Every instant the service writes is spelled by one function (``service/core/instants.py``):
RFC 3339 in UTC with milliseconds and a ``Z``, whatever writes it (a view, a record, a
listing, a log line)."""

from __future__ import annotations

import ast
import json
import logging
from dataclasses import replace
from pathlib import Path

import service
from service.core.instants import instant, unix_of
from service.core.rules import resolve_rules
from service.engine import new_game, view
from service.jsonlog import JsonFormatter

SERVICE = Path(service.__file__).parent
HOME = SERVICE / "core" / "instants.py"


def test_an_instant_is_utc_with_milliseconds_and_a_z() -> None:
    assert instant(1_700_000_000.25) == "2023-11-14T22:13:20.250Z"
    assert instant(0) == "1970-01-01T00:00:00.000Z"
    assert instant(None) is None


def test_whole_seconds_drop_the_fraction_without_rounding_up() -> None:
    assert instant(1_700_000_000.999, timespec="seconds") == "2023-11-14T22:13:20Z"


def test_an_instant_reads_back_to_its_millisecond() -> None:
    for unix in (0.0, 1_700_000_000.25, 1_700_000_000.001):
        assert unix_of(instant(unix)) == unix


def test_a_views_deadline_and_a_log_line_are_written_alike() -> None:
    state = replace(new_game(resolve_rules({"preset": "classic"}), ["a", "b"], seed="7",
                             turn_seconds=60), turn_deadline=1_700_000_000.25)
    clock = view(state, 0)["clock"]
    assert clock is not None and clock["deadline"] == "2023-11-14T22:13:20.250Z"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "hello", None, None)
    record.created = 1_700_000_000.25
    assert json.loads(JsonFormatter().format(record))["ts"] == "2023-11-14T22:13:20.250Z"


def test_no_other_module_of_the_service_formats_or_parses_an_instant() -> None:
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        if path == HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if (isinstance(node, ast.Attribute)
                    and node.attr in {"isoformat", "fromisoformat", "strftime"}):
                found.append(f"{path.relative_to(SERVICE)}:{node.lineno}")
    assert found == []
