"""A live service for the bot tests: its own redis-server and a 2-worker gunicorn.

Why not the Flask test client: the bots are independent HTTP clients that park in
long-polls while others move, which needs a real, concurrent server. One service
is shared by the whole session (starting it takes about a second).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.match.local import LocalService, local_service, redis_server_binary


@pytest.fixture(scope="session")
def bot_service() -> Iterator[LocalService]:
    try:
        redis_server_binary()
    except RuntimeError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(str(exc))
    with local_service(workers=2) as service:
        yield service


@pytest.fixture(scope="session")
def service_url(bot_service: LocalService) -> str:
    return bot_service.url
