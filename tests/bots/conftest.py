"""A live service for the bot tests: a 2-worker gunicorn on the session's redis-server.

Why not the Flask test client: the bots are independent HTTP clients that park in
long-polls while others move, which needs a real, concurrent server. The
redis-server of ``tests/conftest.py`` is reused (on its own database) when that
fixture exists; the gunicorn is our own, because the API tests' server caps
long-polls at 1 s and the bot tests check that a waiting bot stays parked longer.
One service is shared by the whole session (starting it takes about a second).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.match.local import LocalService, local_service, redis_server_binary


@pytest.fixture(scope="session")
def bot_service(request: pytest.FixtureRequest) -> Iterator[LocalService]:
    try:
        redis_url: str | None = f"{request.getfixturevalue('redis_server')}/5"
    except pytest.FixtureLookupError:
        redis_url = None
        try:
            redis_server_binary()
        except RuntimeError as exc:  # pragma: no cover - depends on the machine
            pytest.skip(str(exc))
    with local_service(workers=2, redis_url=redis_url) as service:
        yield service


@pytest.fixture(scope="session")
def service_url(bot_service: LocalService) -> str:
    return bot_service.url
