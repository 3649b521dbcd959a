"""The client address behind a proxy (``PROXY_HOPS``, werkzeug's ``ProxyFix``).

gunicorn never sets ``REMOTE_ADDR`` from ``X-Forwarded-For`` (whatever
``--forwarded-allow-ips`` says), so behind an Ingress every client had the Ingress's
address and shared one per-address rate-limit budget. With ``PROXY_HOPS=1`` the address
is the last ``X-Forwarded-For`` value (the one the Ingress appended); with the default
``0`` the header is ignored, so a client talking to the service directly cannot forge
its way out of the limit.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import request
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.conftest import redis_client, redis_url_for_tests

PROXY = "10.0.0.1"  # the TCP peer of every request: the Ingress (or, with 0 hops, the client)
BODY = {"hand": ["5H"], "wild_rank": "K"}


def _client(redis_server: str, **settings: object) -> Iterator[FlaskClient]:
    url = redis_url_for_tests(redis_server, 7)
    redis_client(url).flushdb()
    app = create_app(Config(redis_url=url, rate_limit="off", rate_limit_per_address="3/minute",
                            **settings))  # type: ignore[arg-type]
    yield app.test_client()
    redis_client(url).flushdb()


def _solve(client: FlaskClient, forwarded_for: str | None):  # type: ignore[no-untyped-def]
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return client.post("/v1/solve", json=BODY, headers=headers,
                       environ_base={"REMOTE_ADDR": PROXY})


def _assert_limited(r) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == 429, r.data
    assert r.json["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) >= 1


@pytest.fixture
def behind_one_proxy(redis_server: str) -> Iterator[FlaskClient]:
    yield from _client(redis_server, proxy_hops=1)


@pytest.fixture
def no_proxy(redis_server: str) -> Iterator[FlaskClient]:
    yield from _client(redis_server)


def test_behind_one_proxy_each_forwarded_client_has_its_own_address_budget(
        behind_one_proxy: FlaskClient, redis_server: str) -> None:
    ann, bob = "203.0.113.7", "198.51.100.9"
    for _ in range(3):
        assert _solve(behind_one_proxy, ann).status_code == 200
    _assert_limited(_solve(behind_one_proxy, ann))
    # ann forges a hop of her own: the Ingress appends her real address, and that one counts
    _assert_limited(_solve(behind_one_proxy, f"192.0.2.55, {ann}"))
    for _ in range(3):  # bob, through the same Ingress: unaffected
        assert _solve(behind_one_proxy, bob).status_code == 200
    _assert_limited(_solve(behind_one_proxy, bob))
    keys = b" ".join(redis_client(redis_url_for_tests(redis_server, 7)).keys("*"))
    assert ann.encode() in keys and bob.encode() in keys
    assert PROXY.encode() not in keys and b"192.0.2.55" not in keys


def test_behind_one_proxy_the_scheme_is_the_forwarded_one(behind_one_proxy: FlaskClient) -> None:
    """``X-Forwarded-Proto`` is trusted as far as ``X-Forwarded-For`` (a TLS-terminating
    Ingress forwards plain HTTP; generated URLs must still say https)."""
    seen: dict[str, str] = {}

    @behind_one_proxy.application.before_request
    def _record() -> None:
        seen.update(scheme=request.scheme, remote_addr=request.remote_addr or "")

    behind_one_proxy.get("/healthz", environ_base={"REMOTE_ADDR": PROXY},
                         headers={"X-Forwarded-For": "203.0.113.7",
                                  "X-Forwarded-Proto": "https"})
    assert seen == {"scheme": "https", "remote_addr": "203.0.113.7"}


def test_without_proxy_hops_a_forged_forwarded_for_does_not_escape_the_limit(
        no_proxy: FlaskClient) -> None:
    for n in range(3):
        assert _solve(no_proxy, f"198.51.100.{n}").status_code == 200
    _assert_limited(_solve(no_proxy, "198.51.100.200"))
    _assert_limited(_solve(no_proxy, None))


def test_proxy_hops_is_read_from_the_environment_and_checked() -> None:
    assert Config().proxy_hops == 0
    assert Config.from_env({"PROXY_HOPS": "1"}).proxy_hops == 1
    with pytest.raises(ValueError, match="PROXY_HOPS"):
        Config.from_env({"PROXY_HOPS": "-1"})
    with pytest.raises(ValueError, match="PROXY_HOPS"):
        Config.from_env({"PROXY_HOPS": "yes"})
