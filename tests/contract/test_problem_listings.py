"""Each operation lists, per status, the problem codes it can return, and the list holds.

The lists come from one table (``service.api.problems.CODE_STATUSES``: each code with its
statuses), through ``problems(blp, …)`` in ``service/api/docs.py``. Here, statically: every
listed code is one the table gives that status, and every code the view's code path
raises (its body and the functions it calls, followed by name through ``service/api``
and the service layer, ``service/play``) is listed on its operation. Following by name
over-approximates: the few codes it finds that cannot happen are in :data:`UNREACHABLE`,
each with why. The engine's codes (rules, cards, actions) are checked by driving the
operations: tests/api/test_document_two_way.py checks the code of every problem it meets
against its operation's list.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.api.problems import CODE_STATUSES
from service.core.errors import EngineError
from service.openapi import document
from service.play import PlayError
from tests.contract.view_code import METHODS, is_view, views_in

SERVICE = Path(__file__).resolve().parents[2] / "service"
API = SERVICE / "api"
#: werkzeug's own errors that helpers raise, by the code they become
WERKZEUG = {"RequestEntityTooLarge": "body_too_large", "ClientDisconnected": "bad_request"}
#: codes any request may meet whatever its operation, so no operation lists them
GENERIC = {"bad_request", "http_error", "internal_error", "not_found", "method_not_allowed"}
#: (operation, code) pairs the name-following finds but no request can meet, and why
UNREACHABLE = {
    ("createSeek", "invalid_token"): "the seek is read with the token this request made",
    ("createSeek", "too_many_bot_games"): "a matched game has no bot seats (create_game "
                                          "counts bot seats only, and is given no load)",
    ("getSeek", "too_many_bot_games"): "the same",
    # the account stream's holds on its seeks run inside the stream, once the answer has
    # begun (none of what they call can become the stream's problem response), and they
    # create only the games of matched seeks, which have no bot seats
    ("streamMe", "unknown_seek"): "raised by seek holds inside the stream, never answered",
    ("streamMe", "too_many_bot_games"): "a matched game has no bot seats",
    ("streamMe", "unknown_challenge"): "found by name (a store's load or index), not called",
    ("streamMe", "challenge_closed"): "the same",
    ("createSeek", "not_your_account"): "a match seats the seekers, each with the key "
                                        "it sought with: every one agreed",
    ("getSeek", "not_your_account"): "the same",
    ("createTournament", "invalid_challenge"): "may_invite refuses an invitation to "
                                               "oneself; a creator who names itself enters",
    ("askRematch", "not_your_account"): "the last ask starts it: every account seat asked",
    ("createChallenge", "not_your_account"): "a challenge's game seats its challenger and "
                                             "those who accepted: every one agreed",
    ("acceptChallenge", "not_your_account"): "the same",
    ("streamMe", "not_your_account"): "raised by seek holds inside the stream (a match's "
                                      "admission), never answered",
}


def _error_codes() -> dict[str, str]:
    """The code of every error class, by class name."""
    found: dict[str, str] = {}
    todo: list[type] = [*EngineError.__subclasses__(), *PlayError.__subclasses__()]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls.code
        todo.extend(cls.__subclasses__())
    return {**found, **WERKZEUG}


def _called(node: ast.AST) -> Iterator[str]:
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            if isinstance(func, ast.Name):
                yield func.id
            elif isinstance(func, ast.Attribute):
                yield func.attr


def _raised(node: ast.AST, classes: dict[str, str]) -> set[str]:
    """The codes ``node`` itself raises: ``ApiProblem(status, "code")`` and error classes."""
    codes: set[str] = set()
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        name = (call.func.id if isinstance(call.func, ast.Name)
                else call.func.attr if isinstance(call.func, ast.Attribute) else "")
        if name == "ApiProblem" and isinstance(call.args[1], ast.Constant):
            codes.add(call.args[1].value)
        elif name in classes:
            codes.add(classes[name])
    return codes


def _code_paths() -> dict[str, set[str]]:
    """The codes each operation's view raises, following the helpers of service/api."""
    classes = _error_codes()
    helpers: dict[str, list[ast.FunctionDef]] = {}
    views: dict[str, ast.FunctionDef] = {}
    # (service/wire: the parsers and wait limits the views call, shared with the push tier)
    for path in [*API.rglob("*.py"), *(SERVICE / "play").rglob("*.py"),
                 *(SERVICE / "wire").rglob("*.py")]:
        tree = ast.parse(path.read_text(), str(path))
        views.update(views_in(tree, path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and not is_view(node):
                for fn in node.body:
                    if isinstance(fn, ast.FunctionDef):
                        helpers.setdefault(fn.name, []).append(fn)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                helpers.setdefault(node.name, []).append(node)

    def reach(fn: ast.FunctionDef, seen: set[str]) -> set[str]:
        codes = _raised(fn, classes)
        for name in set(_called(fn)) - seen:
            seen.add(name)
            for helper in helpers.get(name, []):
                codes |= reach(helper, seen)
        return codes

    return {op: reach(fn, set()) for op, fn in views.items()}


def _listed(op: dict[str, Any]) -> dict[int, list[str]]:
    listed: dict[int, list[str]] = {}
    for status, response in op["responses"].items():
        if status.startswith(("4", "5")):
            schema = response["content"]["application/problem+json"]["schema"]
            listed[int(status)] = schema["properties"]["code"]["enum"]
    return listed


def _operations() -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for item in document()["paths"].values()
            for method, op in item.items() if method in METHODS}


def test_every_problem_response_lists_codes_the_table_gives_its_status() -> None:
    for op_id, op in _operations().items():
        for status, codes in _listed(op).items():
            assert codes, (op_id, status)
            wrong = [c for c in codes if status not in CODE_STATUSES[c]]
            assert not wrong, f"{op_id} lists {wrong} under {status}"
            described = op["responses"][str(status)]["description"]
            assert all(f"`{c}`" in described for c in codes), (op_id, status)


def test_every_code_an_operations_own_code_path_raises_is_listed() -> None:
    operations = _operations()
    paths = _code_paths()
    assert set(paths) == set(operations)
    assert {"invalid_token", "unknown_game", "invalid_json", "invalid_card"} <= paths["act"]
    assert "too_many_waits" in paths["getGame"]  # reached through parked() → WaitSlots.hold
    assert "seek_matched" in paths["deleteSeek"]  # through play.cancel_seek
    for op_id, raised in paths.items():
        listed = {code for codes in _listed(operations[op_id]).values() for code in codes}
        missing = {c for c in raised - GENERIC - listed if (op_id, c) not in UNREACHABLE}
        assert not missing, f"{op_id} can raise {sorted(missing)} but does not list them"
    stale = {pair for pair in UNREACHABLE if pair[1] not in paths[pair[0]]}
    assert not stale, f"no longer found, drop them from UNREACHABLE: {stale}"


def test_a_conflict_and_an_unprocessable_body_list_only_their_operations_codes() -> None:
    """Not every code of the API (what every 409 and 422 used to list)."""
    act = _listed(_operations()["act"])
    assert "seek_matched" not in act[409] and "solve_too_complex" not in act[422]
    assert act[412] == ["version_conflict"]
    assert _listed(_operations()["deleteSeek"])[409] == ["seek_matched"]
