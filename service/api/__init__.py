"""The HTTP layer: flask-smorest blueprints that parse, call the service layer (``service.play``), and render."""

from __future__ import annotations

from .accounts import accounts_blp
from .analyses import blp as analyses_blp
from .bots import blp as bots_blp
from .challenges import blp as challenges_blp
from .evaluations import blp as evaluations_blp
from .events import blp as events_blp
from .exports import blp as exports_blp
from .games import blp as games_blp
from .health import blp as health_blp
from .ladder import ladder_blp
from .mistakes import me_blp  # /v1/me, with the mistakes routes added
from .ratings import ratings_blp
from .records import blp as records_blp
from .rules import blp as rules_blp
from .seeks import blp as seeks_blp
from .solve import blp as solve_blp
from .stream import blp as streams_blp
from .tournaments import blp as tournaments_blp

BLUEPRINTS = (health_blp, rules_blp, bots_blp, solve_blp, games_blp, events_blp,
              records_blp, streams_blp, seeks_blp, accounts_blp, exports_blp, me_blp,
              challenges_blp, ratings_blp, ladder_blp, tournaments_blp, analyses_blp,
              evaluations_blp)

__all__ = ["BLUEPRINTS"]
