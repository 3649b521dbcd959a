"""An error becomes a problem by what its class says (``service/api/problems.py``): a
service-layer error declares its ``code`` and HTTP ``status`` on the class, so adding one
is one class in ``service/play/errors.py``; an engine error's status is that of its kind.
A bare Flask app with the handlers, no store: nothing here opens a connection."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from flask import Flask

from service.api.problems import CODE_STATUSES, register_error_handlers
from service.core.errors import InvalidCardError, SeatAwayError
from service.play import PlayError


def _app(error: Exception) -> Flask:
    app = Flask(__name__)
    register_error_handlers(app, retry_after_seconds=7)

    @app.get("/boom")
    def boom() -> str:
        raise error

    return app


@pytest.fixture
def forget_new_errors() -> Iterator[None]:
    """A class a test declares stays among ``PlayError.__subclasses__()`` until collected;
    collect it, so the walks of every error class elsewhere never meet it."""
    yield
    gc.collect()


def test_a_service_error_is_answered_with_the_code_and_status_its_class_declares(
        forget_new_errors: None) -> None:
    class TeapotError(PlayError):
        code = "teapot"
        status = 418

    response = _app(TeapotError("short and stout", spout=1)).test_client().get("/boom")
    assert response.status_code == 418
    assert response.json == {
        "type": "urn:three-thirteen:problem:teapot", "title": "Error", "status": 418,
        "detail": "short and stout", "code": "teapot", "instance": "/boom", "spout": 1,
    }


def test_a_service_error_with_a_busy_status_says_when_to_ask_again(
        forget_new_errors: None) -> None:
    class QueueFullError(PlayError):
        code = "queue_full"
        status = 503

    response = _app(QueueFullError("later")).test_client().get("/boom")
    assert (response.status_code, response.headers["Retry-After"]) == (503, "7")


@pytest.mark.parametrize("declared", [{"code": "no_status"}, {"status": 409}, {}])
def test_a_service_error_without_its_own_code_and_status_cannot_be_declared(
        declared: dict[str, object], forget_new_errors: None) -> None:
    with pytest.raises(TypeError, match="declares no code and status"):
        type("HalfDeclaredError", (PlayError,), dict(declared))


def test_an_engine_error_is_answered_with_the_status_of_its_kind() -> None:
    card = _app(InvalidCardError("not a card: 7X")).test_client().get("/boom")
    away = _app(SeatAwayError("seat 1 is away")).test_client().get("/boom")
    assert (card.status_code, card.get_json()["code"]) == (422, "invalid_card")
    assert (away.status_code, away.get_json()["code"]) == (409, "seat_away")


def test_the_table_of_codes_keeps_both_statuses_of_a_version_conflict() -> None:
    """``version_conflict`` is two classes with one code: a stale If-Match (412) and a write
    that kept losing its race (409); the table reads both off their classes."""
    assert CODE_STATUSES["version_conflict"] == (409, 412)
