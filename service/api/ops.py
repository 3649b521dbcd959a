"""Operations: ``GET /metrics``, request ids, per-request metrics and the JSON request log.

Every response carries ``X-Request-ID``: the client's own when it sent a usable
one (1–128 printable ASCII characters), else a new random id. The same id is in
the request's log line, so a client's report can be matched to the server's log.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import time
from typing import Any

from flask import Flask, Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import metrics

__all__ = ["REQUEST_ID_HEADER", "blp", "install_request_hooks"]

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"[\x21-\x7e][\x20-\x7e]{0,127}")

log = logging.getLogger("three_thirteen.request")

#: Methods kept as metric labels; any other (a client may send any token) is "OTHER",
#: so hostile requests cannot grow the number of series without bound.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

blp = Blueprint("ops", __name__, description="Operations: Prometheus metrics.")


@blp.route("/metrics")
class Metrics(MethodView):
    @blp.doc(
        operationId="metrics",
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


#: Where a request keeps its start time and id: its WSGI environ, reached with one lookup
#: through Flask's request proxy (each ``g.x`` or ``request.x`` is a context lookup of its own).
_STARTED = "three_thirteen.started"
_ID = "three_thirteen.request_id"


def install_request_hooks(app: Flask) -> None:
    @app.before_request
    def _start() -> None:
        environ = request.environ
        sent = environ.get("HTTP_X_REQUEST_ID")
        environ[_ID] = sent if sent and _REQUEST_ID.fullmatch(sent) else os.urandom(16).hex()
        environ[_STARTED] = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        req = request._get_current_object()  # type: ignore[attr-defined]
        environ = req.environ
        started = environ.get(_STARTED)
        if started is None:  # a before_request hook failed before ours ran
            started = environ[_STARTED] = time.perf_counter()
            environ[_ID] = os.urandom(16).hex()
        elapsed = time.perf_counter() - started
        rule = req.url_rule.rule if req.url_rule is not None else "<unmatched>"
        method = req.method
        count, latency = _series(method if method in _METHODS else "OTHER", rule,
                                 response.status_code)
        count.inc()
        latency.observe(elapsed)
        request_id = environ[_ID]
        response.headers[REQUEST_ID_HEADER] = request_id
        if log.isEnabledFor(logging.INFO):
            log.info(
                "request",
                extra={"method": method, "rule": rule, "status": response.status_code,
                       "duration_ms": round(elapsed * 1000, 3), "request_id": request_id},
            )
        return response


@functools.lru_cache(maxsize=1024)
def _series(method: str, rule: str, status: int) -> tuple[Any, Any]:
    """The request counter and latency histogram of one (method, rule, status), looked up
    once: ``labels()`` costs several microseconds a call. Rules are the app's URL rules,
    never raw paths, so the set is small and bounded."""
    labels = (method, rule, str(status))
    return metrics.REQUESTS.labels(*labels), metrics.REQUEST_SECONDS.labels(*labels)
