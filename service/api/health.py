"""``/healthz`` (the process answers) and ``/readyz`` (and Redis answers, and would take a
write: not full, not a read-only replica)."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from .docs import NO_BEARER, problems
from .schemas import HealthSchema
from .web import json_response, stores

blp = Blueprint("health", __name__, description="Liveness and readiness probes.")


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(operationId="health", security=NO_BEARER)
    @blp.response(200, HealthSchema)
    def get(self) -> Response:
        """Liveness: the process serves requests (no Redis call)"""
        return json_response({"status": "ok"})


@blp.route("/readyz")
class Ready(MethodView):
    @blp.doc(operationId="ready", security=NO_BEARER)
    @blp.response(200, HealthSchema)
    @problems(blp)
    def get(self) -> Response:
        """Readiness: Redis answers within the timeout and would take a write (else 503)

        A Redis that is full (`maxmemory` reached under `noeviction`) or a read-only
        replica answers reads but refuses every move: the service is then not ready
        (taken out of a load balancer's rotation), though alive (`/healthz`)."""
        stores().games.ping()
        return json_response({"status": "ready"})
