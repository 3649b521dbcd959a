"""``/healthz`` (the process answers) and ``/readyz`` (and Redis answers too)."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from .docs import problems
from .schemas import HealthSchema
from .web import json_response, stores

blp = Blueprint("health", __name__, description="Liveness and readiness probes.")


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(operationId="health")
    @blp.response(200, HealthSchema)
    def get(self) -> Response:
        """Liveness: the process serves requests (no Redis call)"""
        return json_response({"status": "ok"})


@blp.route("/readyz")
class Ready(MethodView):
    @blp.doc(operationId="ready")
    @blp.response(200, HealthSchema)
    @problems(blp)
    def get(self) -> Response:
        """Readiness: Redis answers a PING within the timeout (else 503)"""
        stores().games.ping()
        return json_response({"status": "ready"})
