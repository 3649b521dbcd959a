"""``POST /v1/solve``: the optimal arrangement and discard analysis of any hand.

A solve is CPU in the web worker that serves it, bounded by the solver's step budget
(20,000 steps, a few hundred milliseconds at worst). Three things keep one client's
solves from holding others up: a worker runs at most ``SOLVES_AT_ONCE`` solves at a
time (the others wait, costing nothing), a solve lets the worker's other requests run
every :data:`YIELD_STEPS` steps (:class:`SharingBudget`), so a quick request waits a
few milliseconds, not whole solves; and the solves of one address and of one token are
rate limited (``SOLVE_LIMIT``, ``service/api/limits.py``), a refused
``solve_too_complex`` counted like any other.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from service import metrics
from service.core.cards import card_name, card_names, parse_card, parse_rank, rank_name
from service.core.melds import meld_kinds
from service.core.rules import Rules
from service.engine.serialize import rules_from_json
from service.solver import Arrangement, analyze
from service.solver.budget import Budget

from .docs import NO_BEARER, json_body, problems
from .problems import ApiProblem
from .schemas import SolveRequestSchema, SolveResponseSchema
from .web import json_response, load_body

blp = Blueprint("solve", __name__, url_prefix="/v1/solve", description="The meld solver.")

#: How many search steps a solve takes between two chances for the worker's other
#: requests to run (about 5 ms of CPU).
YIELD_STEPS = 250


class SharingBudget(Budget):
    """The solver's step budget, yielding the worker every :data:`YIELD_STEPS` steps.

    ``time.sleep(0)`` is the documented way to yield under gevent's monkey-patching (the
    web workers' class, ``deploy/gunicorn.conf.py``) and costs nothing elsewhere. The
    steps, and so the answer, stay the same: only when other requests run changes."""

    def spend(self, steps: int) -> None:
        before = self.steps
        super().spend(steps)
        if self.steps // YIELD_STEPS != before // YIELD_STEPS:
            time.sleep(0)

_REQUEST = SolveRequestSchema()
EXAMPLE = {"hand": ["4S", "5H", "6S", "KD", "KC", "9H"], "wild_rank": "5",
           "rules": {"preset": "classic"}}


def _check_table(table: list[list[int]], wild: int | None, rules: Rules) -> None:
    """Every table meld must be a valid meld under the rules and wild rank: the solver
    would otherwise pass over it silently and answer as if it were not on the table."""
    for index, meld in enumerate(table):
        if not meld_kinds(meld, wild, rules):
            names = card_names(meld)
            message = f"table meld {index} ({' '.join(names) or 'empty'}) is not a valid meld"
            raise ApiProblem(422, "invalid_body", f"{message} under these rules and wild rank",
                             meld=index, cards=names, errors={"table": {index: [message]}})


def _arrangement(a: Arrangement) -> dict[str, Any]:
    out: dict[str, Any] = {"melds": [card_names(m) for m in a.melds]}
    if a.layoffs:
        out["layoffs"] = [{"meld": i, "cards": card_names(c)} for i, c in a.layoffs]
    return out


def _one_of(name: str) -> dict[str, object]:
    """One branch of "exactly one of `wild_rank` and `round`": the property is named too,
    so a generated client reads the branch as that field made required, not as `unknown`."""
    return {"type": "object", "required": [name], "properties": {name: _BRANCH_TYPES[name]}}


#: The two fields' types, as the branches name them (SolveRequest documents them in full):
#: a ``$ref`` into a schema's properties is valid JSON Schema but breaks Python generators.
_BRANCH_TYPES = {"wild_rank": {"type": ["string", "null"]}, "round": {"type": "integer"}}


@blp.route("")
class Solve(MethodView):
    @blp.doc(**json_body("SolveRequest", "A hand and its round.", EXAMPLE,
                         oneOf=[_one_of("wild_rank"), _one_of("round")]),
             operationId="solve", security=NO_BEARER)
    @blp.response(200, SolveResponseSchema)
    @problems(blp, "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body", "invalid_rules", "invalid_input",
              "solve_too_complex", storage=False)
    def post(self) -> Response:
        """Solve a hand

        `penalty` is the minimum deadwood over every arrangement and `melds`/`deadwood`
        one arrangement reaching it; `go_out` lists each card whose discard leaves the
        rest fully melded; `discards` the penalty without each card, best first.
        With `round`, the round's contract (if the rules have contracts) applies to
        `go_out`.
        """
        body = load_body(_REQUEST)
        rules = rules_from_json(body["rules"])
        hand = [parse_card(c) for c in body["hand"]]
        contract = None
        wild: int | None
        if "round" in body:
            number = body["round"]
            if number > rules.rounds:
                raise ApiProblem(
                    422, "invalid_body", f"these rules have {rules.rounds} rounds, not {number}",
                    errors={"round": [f"at most {rules.rounds}"]},
                )
            wild = rules.wild_rank(number - 1)
            contract = rules.contract(number - 1)
        else:
            wild = None if body["wild_rank"] is None else parse_rank(body["wild_rank"])
        table = [[parse_card(c) for c in meld] for meld in body.get("table", ())]
        _check_table(table, wild, rules)
        with current_app.extensions["three_thirteen"].solves, metrics.SOLVE_SECONDS.time():
            result = analyze(hand, wild, rules, table, contract, budget=SharingBudget())
        best = result.best
        out: dict[str, Any] = {
            "penalty": best.penalty,
            **_arrangement(best),
            "deadwood": card_names(best.deadwood),
            "go_out": [
                {"discard": card_name(card), **_arrangement(a)} for card, a in result.go_out.items()
            ],
            "discards": [{"card": card_name(c), "penalty": p} for c, p in result.discards],
            "wild_rank": None if wild is None else rank_name(wild),
        }
        return json_response(out)
