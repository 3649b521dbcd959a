"""``ServiceFlask``: the per-function sync check and the shared null session change no
behaviour Flask documents."""

from __future__ import annotations

import pytest
from flask import session

from service.app import create_app
from service.config import Config


@pytest.fixture()
def app():  # type: ignore[no-untyped-def]
    app = create_app(Config(redis_url="redis://127.0.0.1:1/0", rate_limit="off",
                            rate_limit_per_address="off"))

    @app.get("/sync-probe")
    def sync_probe() -> str:
        return "sync"

    @app.get("/session-probe")
    def session_probe() -> str:
        session["x"] = 1
        return "wrote"

    return app


def test_a_plain_function_is_returned_as_is_and_remembered(app) -> None:  # type: ignore[no-untyped-def]
    def view() -> None: ...

    assert app.ensure_sync(view) is view
    assert app.ensure_sync(view) is view
    assert app._is_sync[view] is True


def test_an_async_view_still_goes_through_async_to_sync(app) -> None:  # type: ignore[no-untyped-def]
    async def view() -> None: ...

    seen: list[object] = []
    app.async_to_sync = lambda func: seen.append(func) or (lambda: "wrapped")
    assert app.ensure_sync(view)() == "wrapped"
    assert app.ensure_sync(view)() == "wrapped"  # remembered as async, wrapped each time
    assert seen == [view, view]


def test_bound_methods_are_remembered_by_their_function_not_their_instance(app) -> None:  # type: ignore[no-untyped-def]
    class View:
        def get(self) -> None: ...

    for _ in range(5):
        method = View().get
        assert app.ensure_sync(method) is method
    assert View.get in app._is_sync
    assert all(not hasattr(key, "__self__") for key in app._is_sync)


def test_requests_share_a_read_only_session_and_set_no_cookie(app) -> None:  # type: ignore[no-untyped-def]
    client = app.test_client()
    response = client.get("/sync-probe")
    assert response.status_code == 200 and response.text == "sync"
    assert "Set-Cookie" not in response.headers
    assert client.get("/session-probe").status_code == 500  # NullSession refuses writes
