"""An account's webhook in the service layer (``service/play/webhooks.py``), on the
in-memory stores: registering a URL makes a secret shown once, a URL on a non-public
address is refused unless allowed, and the one function that tells an account anything
(``notes.tell``) queues its ``your_turn``, ``challenge`` and ``game_finished`` notes, each
once under an id of its own, and plans the account's delivery. Names are resolved by the
test's resolver: nothing is looked up."""

from __future__ import annotations

import base64
import json

import pytest

from service.play import (
    create_account,
    create_game,
    open_challenge,
    rotate_webhook_secret,
    set_webhook,
)
from service.play.errors import InvalidWebhookUrlError, NoWebhookError
from service.play.notes import tell
from service.play.webhooks import event_id
from service.storage import Account, Delivery, Stores
from tests.play.finished_games import agreed

URL = "https://hooks.example.net/ttt"


def public(host: str, port: int) -> list[str]:
    return ["93.184.216.34"]


def loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def hooked(stores: Stores, handle: str, url: str = URL) -> tuple[Account, str]:
    """A new account with ``url`` as its webhook, and the secret shown for it."""
    account = create_account(stores, handle, False)[0]
    changed, secret = set_webhook(stores, account, url, allow_private=False, resolver=public)
    assert secret is not None
    return changed, secret


def waiting(stores: Stores, handle: str) -> list[Delivery]:
    """The account's queued deliveries, in the order they are due (emptying the queue)."""
    found = []
    while (head := stores.webhooks.head(handle)) is not None:
        found.append(head)
        stores.webhooks.done(handle, head.event_id)
    return found


def test_registering_a_url_makes_a_standard_webhooks_secret_shown_once(stores: Stores) -> None:
    ann, secret = hooked(stores, "ann")
    assert ann.webhook_url == URL and stores.accounts.load("ann").webhook_url == URL
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    again, none = set_webhook(stores, ann, URL, allow_private=False, resolver=public)
    assert none is None and again.webhook_secret == secret  # the same URL keeps it
    moved, other = set_webhook(stores, ann, URL + "/v2", allow_private=False,
                               resolver=public)
    assert other is not None and other != secret and moved.webhook_secret == other


def test_a_rotated_secret_replaces_the_old_one_and_needs_a_url(stores: Stores) -> None:
    ann, secret = hooked(stores, "ann")
    rotated = rotate_webhook_secret(stores, ann)
    assert rotated != secret and stores.accounts.load("ann").webhook_secret == rotated
    bob = create_account(stores, "bob", False)[0]
    with pytest.raises(NoWebhookError):
        rotate_webhook_secret(stores, bob)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://localhost/",
                                 "http://10.1.2.3/", "http://169.254.169.254/latest",
                                 "http://[::1]/"])
def test_a_url_on_a_non_public_address_is_refused_unless_the_operator_allows_it(
        stores: Stores, url: str) -> None:
    ann = create_account(stores, "ann", False)[0]
    with pytest.raises(InvalidWebhookUrlError, match="public addresses only"):
        set_webhook(stores, ann, url, allow_private=False, resolver=loopback)
    assert stores.accounts.load("ann").webhook_url is None
    allowed, secret = set_webhook(stores, ann, url, allow_private=True, resolver=loopback)
    assert allowed.webhook_url == url and secret is not None


def test_removing_the_url_drops_its_secret_and_what_was_waiting(stores: Stores) -> None:
    ann, _ = hooked(stores, "ann")
    tell(stores, "ann", [("n1", {"type": "your_turn", "game_id": "g"})])
    removed, secret = set_webhook(stores, ann, None, allow_private=False, resolver=public)
    assert secret is None and removed.webhook_url is None and removed.webhook_secret is None
    assert stores.webhooks.head("ann") is None


def test_tell_queues_the_three_webhook_notes_each_once_and_plans_the_account(
        stores: Stores) -> None:
    hooked(stores, "Ann")
    notes = [("g:1:game_started", {"type": "game_started", "game_id": "g"}),
             ("g:1:your_turn", {"type": "your_turn", "game_id": "g", "seat": 0}),
             ("c:challenge", {"type": "challenge", "challenge_id": "c"}),
             ("c:declined", {"type": "challenge_declined", "challenge_id": "c"}),
             ("g:9:game_finished", {"type": "game_finished", "game_id": "g"})]
    tell(stores, "ann", notes)
    tell(stores, "ANN", notes[1:2])  # a note told twice (a retried effect)
    queued = waiting(stores, "ann")
    assert [json.loads(d.payload)["type"] for d in queued] == [
        "your_turn", "challenge", "game_finished"]
    assert [d.event_id for d in queued] == [event_id("ann", n) for n in (
        "g:1:your_turn", "c:challenge", "g:9:game_finished")]
    body = json.loads(queued[0].payload)
    assert body["data"] == {"type": "your_turn", "game_id": "g", "seat": 0, "account": "Ann"}
    assert body["timestamp"].endswith("Z") and queued[0].attempts == 0
    lease = stores.webhook_schedule.take(queued[0].due + 1, 30)
    assert lease is not None and lease.key == "ann"
    assert stores.schedule.take(queued[0].due + 1, 30) is None  # not the moves' schedule


def test_an_event_id_is_the_same_for_a_note_every_time_and_differs_by_account_and_note() \
        -> None:
    assert event_id("Ann", "g:1:your_turn") == event_id("ann", "g:1:your_turn")
    ids = {event_id(h, n) for h in ("ann", "bob") for n in ("g:1:your_turn", "g:2:your_turn")}
    assert len(ids) == 4 and all(i.startswith("msg_") and len(i) == 36 for i in ids)


def test_nothing_is_queued_for_an_account_without_a_url(stores: Stores) -> None:
    create_account(stores, "bob", False)
    tell(stores, "bob", [("g:1:your_turn", {"type": "your_turn", "game_id": "g"})])
    assert stores.webhooks.head("bob") is None
    assert stores.webhook_schedule.visits_due(1e12) == (0, None)


def test_a_game_and_a_challenge_between_accounts_queue_their_notes_for_each_webhook(
        stores: Stores) -> None:
    ann, _ = hooked(stores, "ann")
    bob, _ = hooked(stores, "bob")
    open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    assert [json.loads(d.payload)["type"] for d in waiting(stores, "bob")] == ["challenge"]
    assert waiting(stores, "ann") == []  # the challenger is told nothing
    record, _ = create_game(stores, {"preset": "classic", "hand_sizes": [3]}, ["ann", "bob"],
                            "hooked", accounts=[ann, bob], agreed=agreed(ann, bob))
    first = record.state.current_seat
    on_turn = ("ann", "bob")[first]
    kinds = {h: [json.loads(d.payload)["data"] for d in waiting(stores, h)]
             for h in ("ann", "bob")}
    assert [(n["type"], n["game_id"], n["seat"]) for n in kinds[on_turn]] == [
        ("your_turn", record.game_id, first)]
    assert kinds[("bob", "ann")[first]] == []  # game_started is not a webhook's
