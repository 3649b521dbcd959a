"""One attempt (``service/webhooks/send.py``) against a real HTTP server on loopback: the
body POSTed as JSON with the three Standard Webhooks headers, the signature checked by
the reference algorithm written in the test; any 2xx a success and nothing else; no
redirect followed; a slow receiver cut at the timeout; no more of an answer read than a
kilobyte (``READ_MAX``); an answer dribbled a byte at a time cut at the attempt's deadline; a non-public address refused before any connection unless allowed, including
when the name's address changed since it was registered (DNS rebinding)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from service.play.webhooks import new_secret
from service.webhooks import USER_AGENT, post, target
from tests.conftest import free_port
from tests.webhooks.receiver import Receiver, receiving, reference_signature, signed_by

BODY = '{"type":"your_turn","timestamp":"2025-01-01T00:00:00Z","data":{"game_id":"g"}}'


def attempt(url: str, secret: str, *, timeout: float = 2.0, allow_private: bool = True,
            **kw: object):  # type: ignore[no-untyped-def]
    return post(url, secret, "msg_1", BODY, timeout=timeout, allow_private=allow_private,
                **kw)  # type: ignore[arg-type]


def test_an_attempt_posts_the_json_body_signed_as_standard_webhooks_say() -> None:
    secret = new_secret()
    with receiving() as receiver:
        sent = attempt(receiver.url("/hook?x=1"), secret)
    assert (sent.ok, sent.status) == (True, 200)
    [got] = receiver.received
    assert got.path == "/hook?x=1" and got.body == BODY.encode()
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"] == USER_AGENT
    assert got.headers["host"] == f"127.0.0.1:{receiver.port}"
    assert got.headers["webhook-id"] == "msg_1"
    assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 5
    assert got.headers["webhook-signature"] == reference_signature(
        secret, "msg_1", got.headers["webhook-timestamp"], got.body)
    assert signed_by(secret, got.headers, got.body)
    assert not signed_by(new_secret(), got.headers, got.body)
    assert not signed_by(secret, got.headers, got.body + b" ")


@pytest.mark.parametrize(("status", "ok"), [(200, True), (201, True), (204, True),
                                            (299, True), (302, False), (400, False),
                                            (410, False), (500, False), (503, False)])
def test_any_2xx_is_a_success_and_nothing_else_and_a_redirect_is_not_followed(
        status: int, ok: bool) -> None:
    with receiving(statuses=[status]) as receiver:
        sent = attempt(receiver.url(), new_secret())
        time.sleep(0.1)
    assert (sent.ok, sent.status) == (ok, status)
    assert [r.path for r in receiver.received] == ["/hook"]  # /elsewhere never asked


def test_a_receiver_that_answers_too_late_fails_the_attempt_at_the_timeout() -> None:
    with receiving(delay=5.0) as receiver:
        sent = attempt(receiver.url(), new_secret(), timeout=0.5)
    # its timeout, not the attempt's whole deadline (twice it), nor the answer 5 s later
    assert not sent.ok and sent.status is None and sent.reason == "timeout"


@pytest.fixture
def dribbling() -> Iterator[int]:
    """A server whose answer never ends: a status line, then a header byte every 0.1 s,
    each well within any read timeout."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                for _ in range(300):
                    time.sleep(0.1)
                    conn.sendall(b"x")
            except OSError:
                return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    listener.close()


def test_an_answer_dribbled_within_every_read_timeout_is_cut_at_twice_the_timeout(
        dribbling: int) -> None:
    begun = time.monotonic()
    sent = attempt(f"http://127.0.0.1:{dribbling}/hook", new_secret(), timeout=0.5)
    took = time.monotonic() - begun
    assert (sent.ok, sent.status, sent.reason) == (False, None, "deadline")
    assert 0.9 < took < 15  # the deadline (2 x 0.5 s), not the 30 s of dribbling


def test_a_port_nobody_listens_on_fails_the_attempt_naming_no_address() -> None:
    sent = attempt(f"http://127.0.0.1:{free_port()}/hook", new_secret())
    assert not sent.ok and sent.status is None
    assert "127.0.0.1" not in sent.reason and "hook" not in sent.reason


@pytest.fixture
def trickling() -> Iterator[tuple[int, list[int]]]:
    """A server answering 200 with a 100 MB body, a few KB at once and then slowly: how
    much of it has been written is in the list."""
    written = [0]
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
            try:
                conn.sendall(b"x" * 4096)
                written[0] += 4096
                for _ in range(50):
                    time.sleep(0.1)
                    conn.sendall(b"x" * 4096)
                    written[0] += 4096
            except OSError:
                return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], written
    listener.close()


def test_no_more_of_an_answer_is_read_than_a_kilobyte(trickling: tuple[int, list[int]]) -> None:
    port, written = trickling
    sent = attempt(f"http://127.0.0.1:{port}/hook", new_secret(), timeout=3.0)
    assert sent.ok  # the rest of the body was not awaited: it never comes (an awaited one
    # would end the attempt at its timeout or deadline, not ok)
    assert written[0] < 100_000  # of the 100 MB announced: the first kilobyte was enough


def test_a_loopback_address_is_refused_before_any_connection_unless_allowed() -> None:
    with receiving() as receiver:
        sent = attempt(receiver.url(), new_secret(), allow_private=False)
        time.sleep(0.1)
    assert (sent.ok, sent.reason) == (False, "address refused")
    assert receiver.received == []


def test_a_name_whose_address_changed_to_a_private_one_is_refused_at_delivery() -> None:
    """DNS rebinding: the name was public when it was registered; now it says loopback.
    The delivery checks the address it would connect to, and does not connect."""
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])

    def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    assert target("http://rebind.example.net/", False, rebinding).address == "93.184.216.34"
    with receiving(Receiver()) as receiver:
        sent = attempt(f"http://rebind.example.net:{receiver.port}/", new_secret(),
                       allow_private=False, resolver=rebinding)
    assert sent.reason == "address refused" and receiver.received == []
