"""The deliveries (``service/play/deliveries.py``) on the in-memory stores, with a scripted
receiver and a clock the test moves: one attempt per visit of an account, retried after
each configured wait with the same id and body, given up after the last; an event leaves
the queue only when delivered or given up, so an attempt whose worker died is made again
once its lease runs out; each attempt reads the account's URL and secret afresh."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from service.play import close_account, rotate_webhook_secret, set_webhook
from service.play.deliveries import deliver, lease_seconds
from service.play.webhooks import queue_webhooks
from service.storage import Stores
from service.webhooks import Attempt
from tests.play.test_webhooks import URL, hooked, public

RETRIES = (10.0, 60.0, 300.0)


@dataclass
class Clock:
    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Script:
    """A receiver: answers ``statuses`` in turn (then 200) and keeps every call; each
    answer takes ``took`` seconds of ``clock``."""

    statuses: list[int] = field(default_factory=list)
    calls: list[tuple[str, str, str, str]] = field(default_factory=list)
    clock: Clock | None = None
    took: float = 0.0

    def __call__(self, url: str, secret: str, event_id: str, body: str) -> Attempt:
        self.calls.append((url, secret, event_id, body))
        if self.clock is not None:
            self.clock.now += self.took
        status = self.statuses.pop(0) if self.statuses else 200
        return Attempt(200 <= status < 300, status, f"status {status}")


def visit(stores: Stores, send: Script, clock: Clock) -> str | None:
    """One worker's visit of the account due first now (``"idle"``: none was due)."""
    lease = stores.webhook_schedule.take(clock(), lease_seconds(5.0))
    if lease is None:
        return "idle"
    return deliver(stores, lease, send, RETRIES, clock)


def told(stores: Stores, handle: str, *note_ids: str, clock: Clock) -> None:
    notes = [(n, {"type": "your_turn", "game_id": n}) for n in note_ids]
    stores.accounts.append(handle, notes)
    queue_webhooks(stores, handle, notes, now=clock())


def test_a_failing_receiver_is_tried_after_each_wait_with_one_id_and_body_then_given_up(
        stores: Stores) -> None:
    clock, send = Clock(), Script([500, 503, 404, 500])
    _, secret = hooked(stores, "ann")
    told(stores, "ann", "g:1", clock=clock)
    outcomes = [visit(stores, send, clock)]
    for wait in RETRIES:
        clock.now += wait - 0.001
        assert visit(stores, send, clock) == "idle"  # not yet
        clock.now += 0.001
        outcomes.append(visit(stores, send, clock))
    assert outcomes == ["retried", "retried", "retried", "failed"]
    assert len({call for call in send.calls}) == 1  # the same URL, secret, id and body
    assert send.calls[0][:2] == (URL, secret)
    assert stores.webhooks.head("ann") is None
    clock.now += 10**6
    assert visit(stores, send, clock) == "idle"  # given up: nothing more


def test_a_delivered_event_leaves_the_queue_and_the_next_goes_in_order(stores: Stores) -> None:
    clock, send = Clock(), Script([500])
    hooked(stores, "ann")
    told(stores, "ann", "g:1", "g:2", clock=clock)
    assert visit(stores, send, clock) == "retried"  # g:1 fails: put off by 10 s
    assert visit(stores, send, clock) == "ok"  # g:2, due now, goes first
    assert visit(stores, send, clock) == "idle"
    clock.now += 10
    assert visit(stores, send, clock) == "ok"
    assert [c[2] for c in send.calls] == [send.calls[0][2], send.calls[1][2],
                                          send.calls[0][2]]
    assert stores.webhooks.head("ann") is None


def test_an_attempt_whose_worker_died_is_made_again_once_its_lease_runs_out(
        stores: Stores) -> None:
    clock, send = Clock(), Script()
    hooked(stores, "ann")
    told(stores, "ann", "g:1", clock=clock)
    lost = stores.webhook_schedule.take(clock(), lease_seconds(5.0))
    assert lost is not None  # a worker took it and died during its attempt
    assert visit(stores, send, clock) == "idle"  # leased: no other worker delivers meanwhile
    clock.now += lease_seconds(5.0)
    assert visit(stores, send, clock) == "ok"
    assert len(send.calls) == 1


def test_each_attempt_reads_the_url_and_secret_afresh(stores: Stores) -> None:
    clock, send = Clock(), Script([500])
    ann, _ = hooked(stores, "ann")
    told(stores, "ann", "g:1", clock=clock)
    visit(stores, send, clock)
    moved, secret = set_webhook(stores, ann, URL + "/new", allow_private=False,
                                resolver=public)
    rotated = rotate_webhook_secret(stores, moved)
    clock.now += RETRIES[0]
    assert visit(stores, send, clock) == "ok"
    assert send.calls[1][:2] == (URL + "/new", rotated) and rotated != secret


@pytest.mark.parametrize("how", ["removed", "closed"])
def test_the_queue_of_an_account_without_a_webhook_is_dropped_unsent(
        stores: Stores, how: str) -> None:
    clock, send = Clock(), Script()
    ann, _ = hooked(stores, "ann")
    told(stores, "ann", "g:1", "g:2", clock=clock)
    if how == "closed":
        close_account(stores, ann)
    else:
        stores.accounts.update("ann", webhook_url=None, webhook_secret=None)
    assert visit(stores, send, clock) is None
    assert send.calls == [] and stores.webhooks.head("ann") is None
    assert visit(stores, send, clock) == "idle"  # and the account is off the schedule


def test_accounts_with_events_due_take_turns_one_attempt_each(stores: Stores) -> None:
    clock = Clock()
    send = Script(clock=clock, took=0.05)
    for handle in ("ann", "bob"):
        hooked(stores, handle, f"{URL}/{handle}")
        told(stores, handle, "g:1", "g:2", "g:3", clock=clock)
    while visit(stores, send, clock) != "idle":
        pass
    # each visit made one attempt and put its account behind the other one due
    assert [c[0].rsplit("/", 1)[1] for c in send.calls] == ["ann", "bob"] * 3


def test_an_event_queued_during_an_attempt_waits_for_it_instead_of_a_second_attempt(
        stores: Stores) -> None:
    """The new event plans the account sooner than its lease: another worker takes it,
    finds the attempt under way and puts the account off; the first worker, done, plans
    the next event at once."""
    clock = Clock()
    hooked(stores, "ann")
    told(stores, "ann", "g:1", clock=clock)
    calls: list[str] = []

    def during(url: str, secret: str, event_id: str, body: str) -> Attempt:
        calls.append(event_id)
        if len(calls) == 1:  # while the first attempt waits on the receiver
            told(stores, "ann", "g:2", clock=clock)
            assert visit(stores, Script(), clock) is None  # held: no second attempt
            assert visit(stores, Script(), clock) == "idle"  # put off until the hold ends
        return Attempt(True, 200, "status 200")

    lease = stores.webhook_schedule.take(clock(), lease_seconds(5.0))
    assert lease is not None
    assert deliver(stores, lease, during, RETRIES, clock) == "ok"
    lease = stores.webhook_schedule.take(clock(), lease_seconds(5.0))  # g:2, due now
    assert lease is not None
    assert deliver(stores, lease, during, RETRIES, clock) == "ok"
    assert len(calls) == len(set(calls)) == 2 and stores.webhooks.head("ann") is None
