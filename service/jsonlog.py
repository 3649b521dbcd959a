"""A logging formatter that writes one JSON object per line (for log collectors).

``deploy/gunicorn.conf.py`` installs it on gunicorn's and the service's loggers.
Fields given with ``extra={...}`` become top-level keys, so the request log line
is ``{"ts": …, "level": "INFO", "logger": "three_thirteen.request", "msg":
"request", "method": …, "rule": …, "status": …, "duration_ms": …,
"request_id": …}``.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson

from service.core.instants import instant

__all__ = ["JsonFormatter"]

#: Attributes every LogRecord has; anything else on a record came from ``extra``.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message",
                                                                                "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": instant(record.created),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode()
