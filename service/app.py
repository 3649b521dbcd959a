"""The application factory: ``create_app(config)`` builds one Flask app.

Nothing is built at import time, so each test gets a fresh app on its own
Redis, and gunicorn builds one per worker (``service.app:create_app()``).
The app is stateless: every request loads the game from Redis, so any worker
(or any machine) can serve any request.
"""

from __future__ import annotations

import http
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response
from flask_cors import CORS
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from .api import BLUEPRINTS
from .api.asyncapi import blp as asyncapi_blp
from .api.deprecations import DeprecationPlugin, install_deprecation_headers
from .api.docs import SECURITY_SCHEMES
from .api.limits import RATE_LIMITED_BLUEPRINTS, install_rate_limits
from .api.ops import blp as ops_blp
from .api.ops import install_request_hooks
from .api.problems import PROBLEM_CONTENT_TYPE, http_exception_problem, register_error_handlers
from .api.push_only import blp as push_only_blp
from .api.schemas import ProblemSchema, register_components
from .api.schemas.events import described2properties
from .api.waiting import install_early_refusal
from .api.webhooks import WEBHOOKS
from .config import Config
from .storage import Stores, redis_stores
from .web import blp as play_blp
from .web.docs import blp as docs_blp
from .wire.headers import ALLOWED_HEADERS, EXPOSED_HEADERS, PREFLIGHT_MAX_AGE
from .wire.waiting import WaitSlots, parse_limit

__all__ = ["API_VERSION", "Services", "begin_shutdown", "create_app"]

#: The API's version, the document's ``info.version``: semantic, its major the paths' ``/v1``
#: (docs/api.md, "Versions and deprecations"); CHANGELOG.md's newest entry (a test holds them
#: equal).
API_VERSION = "1.1.0"

DESCRIPTION = """\
The reference Three-Thirteen (3-13 rummy) service: rules engine, optimal meld solver and
a game server for frontends and bots.

* Cards are two characters, rank then suit: `7H`, `TS`, `JK`.
* Errors are `application/problem+json` (RFC 9457) with a stable `code`; each operation
  lists, per status, the codes it can return.
* A seat token (from game creation, a seat claim or a seek) is sent as
  `Authorization: Bearer <token>`, an account key (`<handle>.<secret>`) the same way:
  each operation's `security` says which it takes (`seatToken`, `accountKey`, none).
* The game version is the `ETag`; send it as `If-Match` on actions to refuse stale
  decisions (412). `Idempotency-Key` on an action makes retries safe.
* Waiting, not polling: `GET /v1/games/{id}?wait=turn` answers when your seat may act,
  `?wait_version=N` on any change, `GET …/events?after=N&timeout=S` with the next events.
* `GET /v1/games/{id}/stream` pushes every event and view, as Server-Sent Events or
  NDJSON: each message is a `StreamMessage` (NDJSON) or a `StreamSseEvent` (SSE).
* Matchmaking: `POST /v1/seeks` with your rules and player count answers with a seat
  token at once and, when enough players arrived, a game and a seat.
* Responses whose fields depend on a state are `oneOf` variants with a discriminator:
  a view's `status`, a seek's `status`, a new seat's `kind`.
"""


#: Solves one web worker runs at once: each is up to a few hundred milliseconds of CPU,
#: shared with the worker's other requests every few milliseconds, so two at a time keep a
#: quick request's wait for its share to a couple of those slices.
SOLVES_AT_ONCE = 2


@dataclass(frozen=True, slots=True)
class Services:
    """What views reach through ``current_app.extensions["three_thirteen"]``."""

    config: Config
    stores: Stores
    waits: WaitSlots
    #: The solves this worker runs at once (``service/api/solve.py``): more wait their turn
    solves: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(SOLVES_AT_ONCE))
    #: Set when the worker begins a graceful shutdown: open streams end (reason
    #: ``shutdown``, with a retry hint) instead of holding the exit up.
    stopping: threading.Event = field(default_factory=threading.Event)


def begin_shutdown(app: Flask) -> None:
    """Tell ``app``'s open streams that this process is stopping, and wake them to see it.

    Called by the gunicorn hook that notices a worker stop accepting requests
    (``deploy/gunicorn.conf.py``); requests already running still finish normally."""
    services: Services = app.extensions["three_thirteen"]
    services.stopping.set()
    services.stores.games.wake_all()


class ProblemApi(Api):
    """flask-smorest's Api, with every error (its own included) as problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        return http_exception_problem(error)

    def _register_pagination_header(self) -> None:
        """No pagination header: the service pages with cursors (``after``/``next_after``),
        and flask-smorest's header would add an unused ``PaginationMetadata`` schema to the
        document (a typed client then carries a type nothing returns)."""

    def _register_responses(self) -> None:
        """Document the shared error responses with the problem+json media type."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


def create_app(config: Config | None = None, stores: Stores | None = None) -> Flask:
    """Build the app from ``config`` (default: the environment) and its stores (default:
    the Redis stores ``config`` describes)."""
    config = config or Config.from_env()
    app = Flask("three_thirteen")
    app.config.update(
        MAX_CONTENT_LENGTH=config.max_body_bytes,
        API_TITLE="Three-Thirteen",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        # no OPENAPI_SWAGGER_UI_PATH: /docs is docs_blp's page (Swagger UI 5, no inline script)
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION, "license": {"name": "MIT", "identifier": "MIT"}},
            # relative: the service that served this document (OpenAPI 3.1, 4.8.5)
            "servers": [{"url": "/", "description": "The service that serves this document."}],
            # what the service POSTs to an account's webhook_url (OpenAPI 3.1)
            "webhooks": WEBHOOKS,
        },
    )
    if stores is None:
        stores = redis_stores(config)
    waits = WaitSlots(parse_limit(config.max_waits_per_address, "MAX_WAITS_PER_ADDRESS"),
                      parse_limit(config.max_waits_per_token, "MAX_WAITS_PER_TOKEN"))
    app.extensions["three_thirteen"] = Services(config, stores, waits)

    api = ProblemApi(app, spec_kwargs={"extra_plugins": [DeprecationPlugin()]})
    api.ma_plugin.converter.add_attribute_function(described2properties)
    for name, scheme in SECURITY_SCHEMES.items():
        api.spec.components.security_scheme(name, scheme)
    register_components(api.spec)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    api.register_blueprint(ops_blp)
    app.register_blueprint(docs_blp)
    app.register_blueprint(asyncapi_blp)  # /asyncapi.json, beside /openapi.json
    app.register_blueprint(play_blp)
    app.register_blueprint(push_only_blp)  # /v1/streams/: the push tier's (a 404 here)
    install_request_hooks(app)
    install_deprecation_headers(app)
    install_early_refusal(app, waits)  # before the limiter: a refused wait costs no Redis

    register_error_handlers(app, config.retry_after_seconds)
    install_rate_limits(app, config, [b for b in BLUEPRINTS if b.name in RATE_LIMITED_BLUEPRINTS])
    CORS(
        app,
        origins=[o.strip() for o in config.cors_origins.split(",")],
        expose_headers=list(EXPOSED_HEADERS),
        allow_headers=list(ALLOWED_HEADERS),
        max_age=PREFLIGHT_MAX_AGE,
    )
    if config.proxy_hops:
        # Behind PROXY_HOPS proxies (an Ingress: 1), the client address is the PROXY_HOPS-th
        # value from the right of X-Forwarded-For: the peer the outermost trusted proxy saw
        # (what a client wrote to the left of it is ignored, so it cannot be forged). gunicorn
        # never rewrites REMOTE_ADDR from that header, whatever --forwarded-allow-ips says.
        # Host is passed through by proxies, so X-Forwarded-Host is not trusted (a proxy
        # that does not set it would let the client's own value through).
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=config.proxy_hops, x_proto=config.proxy_hops)
    return app
