"""Each operation's ``security`` names exactly the credentials its view reads.

A view reads the ``Authorization`` bearer only through the readers of
``service/api/web.py``: ``bearer()`` and ``bearer_token()`` take a seat token or an account
key (the key plays every seat its account holds), ``account()`` and ``my_account()`` an
account key alone (a seat token is no account). Here, statically, each view's code path
(its body and the helpers of ``service/api`` it calls, followed by name, as
test_problem_listings.py does) gives the schemes it takes, and whether it may be called
without any: a reader called with ``required=True``, or ``my_account()``, refuses a request
without one. The operation lists those schemes as alternatives, plus ``{}`` (no
credential) exactly when nothing requires one; the few views where a credential is
required only on one branch are in :data:`ANONYMOUS_ANYWAY`, each with why. (A stream
ticket, ``?ticket=`` on the two streams, is a query parameter of its operation, not a
bearer: ``GET /v1/me/stream`` lists the key it otherwise requires.)
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from service.openapi import document
from tests.contract.view_code import METHODS, views_in

API = Path(__file__).resolve().parents[2] / "service" / "api"

#: The readers of the bearer and the schemes each takes.
READERS = {"bearer": {"seatToken", "accountKey"}, "bearer_token": {"seatToken", "accountKey"},
           "account": {"accountKey"}, "my_account": {"accountKey"}}
#: Operations whose view reads a required credential on one branch only, and why no
#: credential is also fine.
ANONYMOUS_ANYWAY = {
    "createGame": "a key is required only for a seat given as {\"account\": handle}",
}


def _calls(node: ast.AST) -> list[ast.Call]:
    return [c for c in ast.walk(node) if isinstance(c, ast.Call)]


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else "")


def _requires(call: ast.Call) -> bool:
    return _name(call) == "my_account" or any(
        k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords)


def read_credentials() -> dict[str, tuple[set[str], bool]]:
    """Per operation: the schemes its view's code path reads, and whether it requires one."""
    helpers: dict[str, list[ast.FunctionDef]] = {}
    views: dict[str, ast.FunctionDef] = {}
    for path in API.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        views.update(views_in(tree, path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name not in READERS:
                helpers.setdefault(node.name, []).append(node)

    def reach(fn: ast.FunctionDef, seen: set[str]) -> tuple[set[str], bool]:
        schemes: set[str] = set()
        required = False
        for call in _calls(fn):
            name = _name(call)
            if name in READERS:
                schemes |= READERS[name]
                required |= _requires(call)
            elif name not in seen:
                seen.add(name)
                for helper in helpers.get(name, []):
                    more, needed = reach(helper, seen)
                    schemes |= more
                    required |= needed
        return schemes, required

    return {op: reach(fn, set()) for op, fn in views.items()}


def _security() -> dict[str, list[dict[str, list[str]]]]:
    found = {}
    for item in document()["paths"].values():
        for method, op in item.items():
            if method in METHODS:
                assert "security" in op, f"{op['operationId']} does not say what it takes"
                found[op["operationId"]] = op["security"]
    return found


def test_every_operation_lists_exactly_the_credentials_its_view_reads() -> None:
    read = read_credentials()
    declared = _security()
    assert set(read) == set(declared)
    # the scan sees every kind: a seat's bearer, an account's key, none
    assert read["act"] == ({"seatToken", "accountKey"}, True)
    assert read["getMe"] == ({"accountKey"}, True)
    assert read["claimSeat"] == ({"accountKey"}, False)
    assert read["solve"] == (set(), False)
    for op_id, (schemes, required) in read.items():
        listed = declared[op_id]
        named = {scheme for requirement in listed for scheme in requirement}
        assert named == schemes, f"{op_id} reads {sorted(schemes)} but lists {listed}"
        assert all(len(requirement) <= 1 for requirement in listed), (
            f"{op_id}: each credential is an alternative, none needs another: {listed}")
        anonymous = {} in listed or not listed
        expected = not required or op_id in ANONYMOUS_ANYWAY
        assert anonymous == expected, (
            f"{op_id} {'lists' if anonymous else 'does not list'} {{}} (no credential) but "
            f"its view {'requires' if required else 'does not require'} one")
    stale = {op for op in ANONYMOUS_ANYWAY if not read[op][1]}
    assert not stale, f"no longer required on any branch, drop them: {stale}"


def test_authorize_offers_a_seat_token_and_an_account_key() -> None:
    schemes: dict[str, Any] = document()["components"]["securitySchemes"]
    assert set(schemes) == {"seatToken", "accountKey"}
    for scheme in schemes.values():
        assert scheme["type"] == "http" and scheme["scheme"] == "bearer"
    assert "<handle>.<secret>" in schemes["accountKey"]["description"]
