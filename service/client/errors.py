"""What the client raises: the server's problem answers, and an unreachable server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ApiError", "TransportError"]


class ApiError(Exception):
    """An error response: ``status``, the problem's ``code`` and ``detail``, the whole body."""

    def __init__(self, status: int, problem: Mapping[str, Any], headers: Mapping[str, str]):
        self.status = status
        self.problem = dict(problem)
        self.code: str = str(problem.get("code", "http_error"))
        self.detail: str = str(problem.get("detail", problem.get("title", "")))
        self.headers = dict(headers)
        super().__init__(f"{status} {self.code}: {self.detail}")


class TransportError(Exception):
    """The server could not be reached (after the retries that were safe to make)."""
