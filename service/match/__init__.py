"""Bot-vs-bot matches over HTTP: ``python -m service.match --url … --bots greedy,random``.

:func:`run_match` plays the games and :class:`MatchResult` summarises them;
:func:`local_service` starts a throw-away Redis + gunicorn for tests and benchmarks.
"""

from __future__ import annotations

from .local import LocalService, local_service
from .runner import GameResult, MatchResult, check_game, play_game, run_match

__all__ = [
    "GameResult",
    "LocalService",
    "MatchResult",
    "check_game",
    "local_service",
    "play_game",
    "run_match",
]
