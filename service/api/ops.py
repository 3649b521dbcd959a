"""Operations: ``GET /metrics``, request ids, per-request metrics and the JSON request log.

Every response carries ``X-Request-ID``: the client's own when it sent a usable
one (1–128 printable ASCII characters), else a new random id. The same id is in
the request's log line, so a client's report can be matched to the server's log.
"""

from __future__ import annotations

import logging
import os
import time

from flask import Flask, Response, g, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import metrics
from service.wire.headers import REQUEST_ID_HEADER, request_id

from .docs import NO_BEARER

__all__ = ["REQUEST_ID_HEADER", "blp", "install_request_hooks"]


log = logging.getLogger("three_thirteen.request")

#: Methods kept as metric labels; any other (a client may send any token) is "OTHER",
#: so hostile requests cannot grow the number of series without bound.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

blp = Blueprint("ops", __name__, description="Operations: Prometheus metrics.")


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.doc(
        operationId="metrics",
        security=NO_BEARER,
        responses={200: {
            "description": "Prometheus text exposition format, summed over every worker.",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }},
    )
    def get(self) -> Response:
        """Prometheus metrics

        Request counts and latency by endpoint (URL rule) and status, actions applied by
        type, games created and finished, solver time. Scrape it from inside the cluster;
        do not expose it publicly.
        """
        return Response(metrics.render(), content_type=metrics.CONTENT_TYPE)


def install_request_hooks(app: Flask) -> None:
    """Give every request an id and, when it ends, count it, time it and log it."""

    @app.before_request
    def _start() -> None:
        sent = request.headers.get(REQUEST_ID_HEADER)
        g.request_id = request_id(sent)
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        if "started" not in g:  # a before_request hook failed before ours ran
            g.started = time.perf_counter()
            g.request_id = os.urandom(16).hex()
        elapsed = time.perf_counter() - g.started
        rule = request.url_rule.rule if request.url_rule is not None else "<unmatched>"
        method = request.method if request.method in _METHODS else "OTHER"
        labels = (method, rule, str(response.status_code))
        metrics.REQUESTS.labels(*labels).inc()
        metrics.REQUEST_SECONDS.labels(*labels).observe(elapsed)
        response.headers[REQUEST_ID_HEADER] = g.request_id
        log.info(
            "request",
            extra={"method": request.method, "rule": rule, "status": response.status_code,
                   "duration_ms": round(elapsed * 1000, 3), "request_id": g.request_id},
        )
        return response
