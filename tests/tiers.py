"""The test tiers: every test carries exactly one of the markers ``fast``, ``api``,
``process``, ``browser`` and ``cluster`` (registered in pyproject.toml), so a run can pick
by what a test needs rather than by folder: ``make test-fast`` is ``-m fast``.

Why one table here rather than a ``pytestmark`` in every file: a test's tier follows from
where it is and what it asks for, which reads best in one place, and the folders whose
tests other work is rewriting need no edit to be tiered. The tier of a test is the one
of the longest entry of :data:`BY_PATH` that its id starts with (a folder, a file or one
test), raised to the tier of any fixture of :data:`BY_FIXTURE` it asks for (one test of
an in-memory file that compares with a real Redis is ``api``). Tiers are ordered by what
they need; a ``browser`` or ``cluster`` test needs the servers of ``process`` too.

What ``fast`` promises is checked while each fast test runs (:func:`starting_nothing`):
starting a process or opening a connection fails the test, naming what it tried, so a
test that outgrows the tier is moved here rather than slowing ``make test-fast`` down.
"""

from __future__ import annotations

import ast
import contextlib
import socket
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

__all__ = ["BY_FIXTURE", "BY_PATH", "TIERS", "TierError", "mark_tiers", "may_select",
           "starting_nothing", "tier_of", "tiers_in"]

#: The tiers, from the one that needs least to the one that needs most.
TIERS = ("fast", "api", "process", "browser", "cluster")

#: A folder (ending in ``/``), a file or one test (``file::name``) and the tier of its tests.
BY_PATH: dict[str, str] = {
    # the rules engine, the solver, the service layer on the in-memory store, pure checks
    "tests/core/": "fast",  # the notation, instants: pure
    "tests/engine/": "fast",
    "tests/solver/": "fast",
    "tests/play/": "fast",
    "tests/ratings/": "fast",
    "tests/verify/": "fast",
    "tests/verify/test_check.py": "process",  # runs `python -m service.verify`
    "tests/test_config.py": "fast",
    "tests/test_refusals.py": "fast",  # gunicorn's refusals, written to a stand-in socket
    "tests/test_tiers.py": "fast",
    "tests/storage/": "api",
    "tests/storage/test_event_codec.py": "fast",
    "tests/bots/": "process",
    "tests/bots/test_bots_on_the_engine.py": "fast",
    "tests/bots/test_decision_budget.py": "fast",
    "tests/bots/test_simple_bot.py": "fast",
    "tests/bots/test_strong_state.py": "fast",
    "tests/bots/test_decisions.py": "fast",
    "tests/bots/test_decisions.py::test_a_fresh_process_makes_the_same_decisions": "process",
    "tests/bots/test_decisions.py::"
    "test_decision_seed_is_the_same_in_a_fresh_process_and_on_every_machine": "process",
    "tests/contract/": "fast",
    "tests/contract/test_docs_links.py::test_no_file_of_the_repository_points_outside_it":
        "process",  # git ls-files
    "tests/contract/test_docs_links.py::"
    "test_no_file_of_the_repository_names_the_projects_source_documents": "process",
    "tests/contract/test_code_base.py::test_no_file_of_the_repository_names_a_removed_mechanism":
        "process",  # git grep
    "tests/contract/test_package_graph.py::"
    "test_each_package_imports_on_its_own_in_a_fresh_interpreter": "process",
    "tests/contract/test_newcomer.py": "process",  # a fresh clone's `make run`
    "tests/contract/test_openapi_lint.py": "process",  # npm and Redocly CLI
    "tests/ops/": "process",
    "tests/bench/test_push_idle.py": "fast",  # the benchmark's arithmetic: no process
    "tests/ops/test_deploy_files.py": "fast",
    "tests/ops/test_deploy_files.py::test_docker_compose_config_accepts_the_file": "process",
    "tests/ops/test_redis_cluster_manifests.py": "fast",
    "tests/ops/test_redis_cluster_manifests.py::"
    "test_the_built_overlay_points_the_service_at_the_cluster_through_its_secret":
        "process",  # kubectl kustomize
    "tests/analysis/": "fast",  # decisions judged on the engine, pure
    "tests/match/": "fast",
    "tests/research/": "fast",  # knowledge, worlds and the PettingZoo environment, pure  # duplicate evaluation in this process
    "tests/tournaments/": "fast",  # pairing and standings, pure
    "tests/workers/": "fast",  # the move workers' loop and metrics on the in-memory stores
    "tests/webhooks/": "fast",  # where a webhook may go (the test's resolver)
    "tests/webhooks/test_send.py": "api",  # attempts against a receiver on loopback
    "tests/webhooks/test_relay.py": "process",  # python -m service.webhooks.relay, a gunicorn
    "tests/webhooks/test_relay.py::"
    "test_there_is_a_sample_of_each_type_of_webhook_and_each_is_documented": "fast",
    # a real redis-server, the app in this process (Flask's test client)
    "tests/api/": "api",
    "tests/api/test_problems.py": "fast",  # the error handlers on a bare Flask app
    "tests/api/test_streams_on_gunicorn.py": "process",
    "tests/api/test_webhook_deliveries.py": "process",  # python -m service.workers, killed
    "tests/api/test_rating_workers.py": "process",  # python -m service.workers, killed
    "tests/faults/": "process",
    "tests/faults/test_redis_full.py": "api",
    "tests/faults/test_push_through_kills.py": "process",  # a gunicorn, two push processes
    # real gunicorn, other processes
    "tests/conformance/": "process",
    "tests/push/": "process",  # a gunicorn and a push process on one Redis
    "tests/push/test_slow_readers.py": "process",  # a second push process, raw sockets
    "tests/push/test_resting.py": "fast",  # a resting stream and its alarms in a bare loop
    "tests/typescript/": "process",
    "tests/asyncapi/": "process",  # Node runs the AsyncAPI parser; a gunicorn pushes
    "tests/clients/": "process",  # Node runs the TypeScript client against a gunicorn
    "tests/clients/test_stream_forms.py": "fast",
    "tests/clients/test_go_client.py::"
    "test_the_generators_copy_differs_from_the_document_only_where_build_py_says": "fast",
    "tests/clients/test_typescript_client.py::"
    "test_the_bot_in_docs_clients_md_is_the_example_file_as_it_is": "fast",
    "tests/web/": "browser",
    "tests/web/test_play_files.py": "fast",  # the pages' files, served from memory
    "tests/web/test_docs_files.py": "fast",
    "tests/cluster/": "cluster",
    "tests/cluster/test_features_across_shards.py::"
    "test_the_chi_square_tail_matches_known_values": "fast",
}

#: A fixture and the least tier of a test that asks for it.
BY_FIXTURE: dict[str, str] = {
    "redis_server": "api",
    "live_server": "process",
    "ops_server": "process",
    "bot_service": "process",
    "chromium": "browser",
}


class TierError(Exception):
    """A ``fast`` test tried to start a process or open a connection."""


def tier_of(nodeid: str, fixturenames: Sequence[str]) -> str:
    """The tier of the test ``nodeid`` (as pytest names it, from the repository's root)
    that asks for ``fixturenames``; ``fast`` when no entry names it."""
    path = nodeid.split("[", 1)[0]  # a parametrized test's id without its parameters
    entries = [entry for entry in BY_PATH if path == entry
               or path.startswith(entry if entry.endswith("/") else entry + "::")]
    tier = BY_PATH[max(entries, key=len)] if entries else "fast"
    for name in fixturenames:
        if name in BY_FIXTURE and TIERS.index(BY_FIXTURE[name]) > TIERS.index(tier):
            tier = BY_FIXTURE[name]
    return tier


def tiers_in(path: str) -> tuple[str, ...]:
    """The tiers the tests of the file ``path`` may have: the lowest that its entry or an
    entry naming one of its tests gives, and every tier above it (a fixture raises)."""
    given = [tier_of(path, ()), *(tier for entry, tier in BY_PATH.items()
                                  if entry.startswith(path + "::"))]
    return TIERS[min(TIERS.index(tier) for tier in given):]


def may_select(expression: str, path: str) -> bool:
    """Whether the ``-m`` ``expression`` can select a test of the file ``path``, whose
    markers are its tier and perhaps ``slow``. ``True`` when unsure: an expression of
    anything but names, ``and``, ``or``, ``not`` and parentheses. (``make test-fast``
    then need not import the files of other tiers: a few seconds of each process.)"""
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return True

    def holds(node: ast.expr, markers: set[str]) -> bool | None:
        if isinstance(node, ast.Name):
            return node.id in markers
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = holds(node.operand, markers)
            return None if inner is None else not inner
        if isinstance(node, ast.BoolOp):
            values = [holds(value, markers) for value in node.values]
            if None in values:
                return None
            return all(values) if isinstance(node.op, ast.And) else any(values)
        return None

    return any(holds(tree, {tier, *slow}) is not False
               for tier in tiers_in(path) for slow in ((), ("slow",)))


def mark_tiers(items: Sequence[pytest.Item]) -> None:
    """Give each collected test the marker of its tier."""
    for item in items:
        item.add_marker(getattr(pytest.mark, tier_of(item.nodeid, item.fixturenames)))


@contextlib.contextmanager
def starting_nothing() -> Iterator[list[str]]:
    """While inside, starting a process (anything through :mod:`subprocess`) or opening a
    connection raises :class:`TierError`; yields the list of what was tried, which the
    caller checks too, since code under test may catch the error and carry on."""
    tried: list[str] = []

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            tried.append(f"{what} {args[1:2]}")
            raise TierError(f"a fast test tried to {what} {args[1:2]}: give it its tier "
                            "in tests/tiers.py")
        return refused

    saved = (subprocess.Popen._execute_child, socket.socket.connect,  # type: ignore[attr-defined]
             socket.socket.connect_ex)
    subprocess.Popen._execute_child = refuse("start a process")  # type: ignore[attr-defined]
    socket.socket.connect = refuse("connect to")  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse("connect to")  # type: ignore[method-assign]
    try:
        yield tried
    finally:
        (subprocess.Popen._execute_child, socket.socket.connect,  # type: ignore[attr-defined]
         socket.socket.connect_ex) = saved
