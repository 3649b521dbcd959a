"""Webhook deliveries end to end on a real Redis: accounts and a challenge made over HTTP
(the app in this process), the deliveries made by ``python -m service.workers`` processes,
to a receiver on loopback (so the operator's ``WEBHOOK_ALLOW_PRIVATE`` is on, as only a
test or a closed network sets it), with retry waits of a fraction of a second.

What they show: a receiver that answers 500 three times and then 200 gets the same event
(one ``webhook-id``, the same body) four times, each validly signed by the account's
secret as the test's own Standard Webhooks verification computes it, each retry after its
configured wait (and soon after it), and no fifth; a delivery worker killed by SIGKILL between two attempts,
or during one, loses nothing: another started after it delivers the event, with the same
id; and neither the secret nor the URL is ever in a worker's log."""

from __future__ import annotations

import itertools
import json
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.play.deliveries import lease_seconds
from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register
from tests.api.workers import Workers
from tests.conftest import PATIENCE, wait_until
from tests.webhooks.receiver import Receiver, receiving, reference_signature, signed_by

#: The path the receiver is registered at: a worker's log must never show it.
PATH = "/ttt-hooks-d41d8cd9"
TIMEOUT_SECONDS = 1.0


@pytest.fixture
def http(config: Config, redis_db: Any) -> FlaskClient:
    """A client of an app whose operator allows webhooks to loopback."""
    app = create_app(replace(config, webhook_allow_private=True))
    app.config["TESTING"] = True
    return app.test_client()


@pytest.fixture
def deliverers(config: Config, tmp_path: Path, request: pytest.FixtureRequest
               ) -> Iterator[Workers]:
    made = Workers(config, tmp_path, WEBHOOK_ALLOW_PRIVATE="1",
                   WEBHOOK_RETRY_SECONDS=getattr(request, "param", "0.3,0.6,1.2,5"),
                   WEBHOOK_TIMEOUT_SECONDS=str(TIMEOUT_SECONDS))
    yield made
    made.close()


def challenged(http: FlaskClient, url: str) -> tuple[str, str]:
    """Ann challenges Bob, whose webhook is ``url``: Bob's secret and the challenge's id."""
    ann, bob = register(http, "ann"), register(http, "bob")
    r = done(http.patch("/v1/me", json={"webhook_url": url}, headers=key_auth(bob)))
    assert r.status_code == 200, r.json
    made = done(http.post("/v1/challenges", headers=key_auth(ann), json={
        "to": ["bob"], "rules": {"preset": "classic", "hand_sizes": [3]}}))
    assert made.status_code == 201, made.json
    return r.json["webhook_secret"], made.json["challenge_id"]


def queued(redis_db: redis.Redis) -> dict[bytes, bytes]:
    return redis_db.hgetall("ttt:{acct:bob}:hooks")  # type: ignore[return-value]


def test_a_receiver_answering_500_three_times_then_200_gets_one_event_id_signed_each_time(
        http: FlaskClient, redis_db: redis.Redis, deliverers: Workers) -> None:
    waits = (0.3, 0.6, 1.2)
    with receiving(statuses=[500, 500, 500]) as receiver:
        secret, challenge_id = challenged(http, receiver.url(PATH))
        deliverers.start()
        got = receiver.wait_for(4, PATIENCE)
        time.sleep(1.0)  # the 200 ends it: no fifth attempt
        assert len(receiver.received) == 4
    ids = {r.headers["webhook-id"] for r in got}
    assert len(ids) == 1 and next(iter(ids)).startswith("msg_")
    assert {r.body for r in got} == {got[0].body} and {r.path for r in got} == {PATH}
    for r in got:
        assert r.headers["webhook-signature"] == reference_signature(
            secret, r.headers["webhook-id"], r.headers["webhook-timestamp"], r.body)
        assert signed_by(secret, r.headers, r.body)
        assert r.headers["content-type"] == "application/json"
    event = json.loads(got[0].body)
    assert event["type"] == "challenge" and event["data"]["challenge_id"] == challenge_id
    assert event["data"]["account"] == "bob"
    # each retry after its wait, and soon after it: the worker is woken, it does not poll
    # (every 5 s); a busy machine adds to each gap, which the bound allows a little of
    gaps = [b.at - a.at for a, b in itertools.pairwise(got)]
    assert all(wait <= gap < wait + 2.0 for gap, wait in zip(gaps, waits, strict=True)), gaps
    wait_until(lambda: not queued(redis_db), PATIENCE, "the delivered event gone from the queue")
    assert redis_db.zcard("ttt:{hooks}:due") == 0
    logs = deliverers.logs()
    assert "webhook deliveries started" in logs and "retried" in logs
    assert secret not in logs and secret[6:] not in logs and PATH not in logs


@pytest.mark.parametrize("deliverers", ["2"], indirect=True)
def test_a_worker_killed_between_attempts_leaves_the_event_to_the_next_worker(
        http: FlaskClient, redis_db: redis.Redis, deliverers: Workers) -> None:
    with receiving(statuses=[500]) as receiver:
        secret, _ = challenged(http, receiver.url(PATH))
        first = deliverers.start()
        receiver.wait_for(1, PATIENCE)
        # the failed attempt is recorded (its retry due 2 s later): now the worker dies
        wait_until(lambda: [v.split(b"|")[0] for v in queued(redis_db).values()] == [b"1"],
                   PATIENCE, "the first attempt recorded")
        first.send_signal(signal.SIGKILL)
        first.wait(PATIENCE)
        assert len(queued(redis_db)) == 1
        deliverers.start()
        got = receiver.wait_for(2, PATIENCE)
    assert got[0].headers["webhook-id"] == got[1].headers["webhook-id"]
    assert got[0].body == got[1].body and signed_by(secret, got[1].headers, got[1].body)
    wait_until(lambda: not queued(redis_db), PATIENCE, "the delivered event gone from the queue")


def test_a_worker_killed_during_an_attempt_leaves_the_event_to_the_next_worker(
        http: FlaskClient, redis_db: redis.Redis, deliverers: Workers) -> None:
    """The first attempt is under way (the receiver holds it) when its worker is killed:
    the account stays leased to the dead worker until the lease runs out (twice the
    timeout and a margin), and then the next worker makes the attempt again."""
    with receiving(Receiver(delays=[120.0])) as receiver:  # never answers in time
        secret, _ = challenged(http, receiver.url(PATH))
        first = deliverers.start()
        receiver.wait_for(1, PATIENCE)
        first.send_signal(signal.SIGKILL)
        killed = time.time()
        first.wait(PATIENCE)
        deliverers.start()
        got = receiver.wait_for(2, PATIENCE)
    # once the lease (12 s) ran out, not once the held attempt ended (120 s): a bound far
    # from both, so that a busy machine's slower worker does not fail it
    assert got[1].at - killed < lease_seconds(TIMEOUT_SECONDS) + 30
    assert got[0].headers["webhook-id"] == got[1].headers["webhook-id"]
    assert got[0].body == got[1].body and signed_by(secret, got[1].headers, got[1].body)
    wait_until(lambda: not queued(redis_db), PATIENCE, "the delivered event gone from the queue")
