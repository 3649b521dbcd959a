"""The contract suite against any deployment: ``python -m service.conformance --url URL``.

For contract testers: a frontend team checking its staging server, or someone holding
another implementation of this API to the same contract. It runs schemathesis on the
document the server *serves* (``contract.py``) and the project's own scenario checks
over HTTP (``scenarios.py``: a full game per preset with the project's client, secrecy
of views, events and streams, ``If-Match``/412, idempotent retries, problem+json codes,
``Vary``/``Cache-Control`` on views), then prints a table and exits non-zero when a
check failed. ``--no-writes`` keeps to requests that create nothing (for production).
"""

from __future__ import annotations

from .report import Check, Outcome, run_checks

__all__ = ["Check", "Outcome", "run_checks"]
