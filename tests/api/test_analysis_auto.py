"""Automatic analysis on a real Redis (docs/analysis.md#automatic-analysis): an account
sets ``analyse_rated`` with ``PATCH /v1/me`` and reads its quota on ``GET /v1/me``; its
rated game queues one analysis when it finishes (the effect run again queues nothing
more), its opponent who did not ask is charged nothing, and the next rated game past
``ANALYSIS_AUTO_PER_DAY`` is skipped with an ``analysis_skipped`` note on its stream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask.testing import FlaskClient

from service.api.schemas.notes import NOTE_SCHEMAS
from service.config import Config
from service.play.effects import analyse_rated
from service.storage import Account, Stores, redis_stores
from tests.play.finished_games import finish_game

from .test_accounts import key_auth, register

CLASSIC = {"preset": "classic"}


@pytest.fixture
def config(config: Config) -> Config:
    return replace(config, analysis_auto_per_day=1)


@pytest.fixture
def stores(config: Config, client: FlaskClient) -> Iterator[Stores]:
    """The service layer on the app's Redis (after the app's fixtures emptied it)."""
    bundle = redis_stores(config)
    yield bundle
    bundle.close()


def account(stores: Stores, handle: str) -> Account:
    found = stores.accounts.load(handle)
    assert found is not None
    return found


def test_an_account_that_asks_has_one_rated_game_a_day_analysed_and_hears_of_the_next(
        client: FlaskClient, stores: Stores) -> None:
    keys = {h: register(client, h) for h in ("ann", "bob")}
    me = client.get("/v1/me", headers=key_auth(keys["ann"])).json
    assert me["analyse_rated"] is False and me["auto_analyses"] == {"per_day": 1, "used": 0}
    refused = client.patch("/v1/me", json={"analyse_rated": "yes"},
                           headers=key_auth(keys["ann"]))
    assert refused.status_code == 422
    r = client.patch("/v1/me", json={"analyse_rated": True}, headers=key_auth(keys["ann"]))
    assert r.status_code == 200 and r.json["analyse_rated"] is True
    ann, bob = account(stores, "ann"), account(stores, "bob")
    assert ann.analyse_rated and not bob.analyse_rated

    first = finish_game(stores, [ann, bob], "auto-r1", rules=CLASSIC, rated=True)
    assert client.get(f"/v1/games/{first}/analysis").json["status"] == "queued"
    record = stores.games.load(first)
    for _ in range(2):  # the effect again (a visit after a lost process): nothing more
        analyse_rated(stores, record, [], time.time())
    assert stores.analyses.queued() == 1
    used = {h: client.get("/v1/me", headers=key_auth(keys[h])).json["auto_analyses"]["used"]
            for h in keys}
    assert used == {"ann": 1, "bob": 0}

    second = finish_game(stores, [ann, bob], "auto-r2", rules=CLASSIC, rated=True)
    assert client.get(f"/v1/games/{second}/analysis").status_code == 404
    notes = [n for n in stores.accounts.notes("ann", 0, 1000)
             if n.body["type"] == "analysis_skipped"]
    assert [n.body["game_id"] for n in notes] == [second]
    assert NOTE_SCHEMAS["AnalysisSkippedNote"]().validate({**notes[0].body,
                                                          "seq": notes[0].seq}) == {}
    assert notes[0].body["reason"] == "quota" and notes[0].body["per_day"] == 1
    assert not [n for n in stores.accounts.notes("bob", 0, 1000)
                if n.body["type"] == "analysis_skipped"]
