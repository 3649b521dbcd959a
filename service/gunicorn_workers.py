"""gunicorn's gevent and gthread workers, answering gunicorn's own refusals as problem+json.

Why: a request gunicorn cannot parse, or one over its limits (``limit_request_line``,
``limit_request_fields``, ``limit_request_field_size``), never reaches the app: the worker's
``handle_error`` answers it, with an HTML page. gunicorn's documented way to change a
worker is ``worker_class``, which may name any class; these are its own two workers with
``handle_error`` writing the problem of ``service/refusals.py`` instead (the same status,
``application/problem+json``, an ``X-Request-ID``, CORS as the app sends it when any origin
is allowed), so a client meets one error format whichever layer refused it.
``deploy/gunicorn.conf.py`` names them (``WORKER_CLASS=gevent``, the default, or
``gthread``).
"""

from __future__ import annotations

import socket
from typing import Any

from gunicorn import util
from gunicorn.workers.base import Worker
from gunicorn.workers.ggevent import GeventWorker as _GeventWorker
from gunicorn.workers.gthread import ThreadWorker as _ThreadWorker

from service.config import Config
from service.refusals import INTERNAL_ERROR, new_request_id, refusal_of, response_bytes

__all__ = ["GeventWorker", "ProblemRefusals", "ThreadWorker"]


class ProblemRefusals(Worker):
    """gunicorn's ``Worker`` whose ``handle_error`` writes problem+json; put it before a
    gunicorn worker class among the bases (it only overrides ``handle_error``)."""

    cors_any_origin = False

    def init_process(self) -> None:
        """Read ``CORS_ORIGINS`` as the app does, in the worker (a bad setting is then a
        boot error of the worker, like the app's own), then run the worker."""
        origins = Config.from_env().cors_origins
        self.cors_any_origin = "*" in (o.strip() for o in origins.split(","))
        super().init_process()

    def handle_error(self, req: object, client: socket.socket, addr: Any,
                     exc: BaseException) -> None:
        """Log and answer ``exc`` as gunicorn does, with a problem+json body (``addr`` is
        a (host, port) pair, or empty on a Unix socket)."""
        refusal = refusal_of(exc)
        if refusal is None:  # not met as the service runs (service/refusals.py says which)
            super().handle_error(req, client, addr, exc)
            return
        request_id = new_request_id()
        fields = {"status": refusal.status, "code": refusal.code, "request_id": request_id}
        if refusal is INTERNAL_ERROR:
            self.log.exception("Error handling request", extra=fields)
        else:
            self.log.warning("Invalid request from ip=%s: %s", addr[0] if addr else "", exc,
                             extra=fields)
        try:
            util.write_nonblock(client, response_bytes(refusal, exc, self.cfg, request_id,
                                                       self.cors_any_origin))
        except Exception:  # the client went away: nothing to answer
            self.log.debug("Failed to send error message.")


class GeventWorker(ProblemRefusals, _GeventWorker):
    """gunicorn's gevent worker (``worker_class = "gevent"``) with problem+json refusals."""


class ThreadWorker(ProblemRefusals, _ThreadWorker):
    """gunicorn's gthread worker (``worker_class = "gthread"``) with problem+json refusals."""
