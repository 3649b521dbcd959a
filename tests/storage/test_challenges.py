"""The challenge, tournament and evaluation stores' promises
(``service/storage/challenges.py``, ``tournaments.py``, ``evaluations.py``: three interfaces
kept the same way), on a real Redis and in memory: a document is kept as JSON and read back equal; a change is a
check-and-set whose step sees the document as stored and returns a new one, is run again
when another change lands while it runs (so no change is lost) and leaves the document
as it was when it returns ``None`` or raises; each account's index lists its documents
soonest to expire first, in any case of its handle, to the millisecond, and drops the
expired ones as it is read."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from service.storage import AnchorRun, Challenge, Evaluation, PlayedDeal, Stores, Tournament
from tests.conftest import PATIENCE


@dataclass(frozen=True)
class Kind:
    """One kind of document and its store: ``make`` a document of an id, and a field
    that is a log of names (``log`` reads it, ``logged`` returns the document with one
    name more), for the tests to change."""

    store: Any  # a ChallengeStore, TournamentStore or EvaluationStore: the same methods
    make: Callable[[str], Any]
    log: Callable[[Any], tuple[str, ...]]
    logged: Callable[[Any, str], Any]


def challenge(challenge_id: str) -> Challenge:
    return Challenge(challenge_id, "pending", "ann", ("bob", "cy"), (), None,
                     {"preset": "classic"}, 60, False, 100.5, 700.5)


def tournament(tournament_id: str) -> Tournament:
    return Tournament(tournament_id, "t", "ann", "swiss", 2, 3, "open", True,
                      {"preset": "classic"}, 600, False, (), ("bob",), 100.5, None)


def evaluation(evaluation_id: str) -> Evaluation:
    """An evaluation of two anchors: one with a deal over, a void one and one in play, one
    stopped; its anchors are the log the tests change."""
    return Evaluation(evaluation_id, "Robo", "classic", "s", 10, "running", 100.5, (
        AnchorRun("greedy", (PlayedDeal(0, ("g0a", "g0b"), ((1, 2), (1, 1))),
                             PlayedDeal(1, ("g1a", "g1b"), ()),
                             PlayedDeal(2, ("g2a", "g2b")))),
        AnchorRun("random", (PlayedDeal(0, ("r0a", "r0b"), ((2, 1), (1, 2))),), "weaker")))


def with_anchor(e: Evaluation, name: str) -> Evaluation:
    return dataclasses.replace(e, runs=(*e.runs, AnchorRun(name)))


@pytest.fixture(params=["challenges", "tournaments", "evaluations"])
def kind(request: pytest.FixtureRequest, stores: Stores) -> Kind:
    if request.param == "challenges":
        return Kind(stores.challenges, challenge, lambda c: c.accepted,
                    lambda c, name: dataclasses.replace(c, accepted=(*c.accepted, name)))
    if request.param == "evaluations":
        return Kind(stores.evaluations, evaluation,
                    lambda e: tuple(r.anchor for r in e.runs), with_anchor)
    return Kind(stores.tournaments, tournament, lambda t: t.entrants,
                lambda t, name: dataclasses.replace(t, entrants=(*t.entrants, name)))


@pytest.fixture
def documents(kind: Kind) -> Any:
    return kind.store


def test_a_document_is_kept_and_read_back_equal(kind: Kind) -> None:
    kind.store.create(kind.make("c1"), 60)
    assert kind.store.load("c1") == kind.make("c1")
    assert kind.store.load("nope") is None


def test_a_change_writes_the_new_document_its_step_returns_and_answers_it(kind: Kind) -> None:
    kind.store.create(kind.make("c1"), 60)
    seen: list[Any] = []

    def accept(current: Any) -> Any:
        seen.append(current)
        return kind.logged(current, "bob")

    changed = kind.store.change("c1", accept)
    assert seen == [kind.make("c1")]  # once, as stored
    assert changed == kind.store.load("c1") == kind.logged(kind.make("c1"), "bob")


def test_a_step_that_returns_none_leaves_the_document_as_stored(kind: Kind) -> None:
    kind.store.create(kind.make("c1"), 60)
    assert kind.store.change("c1", lambda current: None) == kind.make("c1")
    assert kind.store.load("c1") == kind.make("c1")


def test_a_step_that_raises_leaves_the_document_and_the_error_goes_to_the_caller(
        kind: Kind) -> None:
    kind.store.create(kind.make("c1"), 60)

    def refuse(current: Any) -> Any:
        raise LookupError("closed")

    with pytest.raises(LookupError):
        kind.store.change("c1", refuse)
    assert kind.store.load("c1") == kind.make("c1")


def test_a_change_of_an_unknown_document_runs_no_step(kind: Kind) -> None:
    ran: list[object] = []
    assert kind.store.change("nope", lambda c: ran.append(c) or c) is None
    assert ran == []


def test_a_change_landing_while_a_step_runs_is_kept_and_the_step_runs_again_on_it(
        kind: Kind) -> None:
    """The step runs outside any lock: another change may land meanwhile (and must not
    wait for the step), and then the step is run again on what that change wrote."""
    kind.store.create(kind.make("c1"), 60)
    seen: list[tuple[str, ...]] = []

    def other() -> None:
        kind.store.change("c1", lambda c: kind.logged(c, "other"))

    def mine(current: Any) -> Any:
        seen.append(kind.log(current))
        if len(seen) == 1:
            racer = threading.Thread(target=other)
            racer.start()
            racer.join(PATIENCE)
            assert not racer.is_alive(), "a change waited for another's step to end"
        return kind.logged(current, "mine")

    assert kind.log(kind.store.change("c1", mine)) == (*kind.log(kind.make("c1")), "other",
                                                       "mine")
    assert seen == [kind.log(kind.make("c1")), (*kind.log(kind.make("c1")), "other")]


def test_racing_changes_are_each_applied_once(kind: Kind) -> None:
    kind.store.create(kind.make("c1"), 60)

    def bump(n: int) -> None:
        for m in range(25):
            name = f"{n}.{m}"
            kind.store.change("c1", lambda c, name=name: kind.logged(c, name))

    threads = [threading.Thread(target=bump, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    logged = kind.log(kind.store.load("c1"))[len(kind.log(kind.make("c1"))):]
    assert sorted(logged) == sorted(f"{n}.{m}" for n in range(4) for m in range(25))


def test_an_accounts_index_lists_its_documents_soonest_to_expire_first_in_any_case(
        documents: Any) -> None:
    documents.index("Ann", "late", 300.0)
    documents.index("ann", "soon", 100.0)
    documents.index("ANN", "mid", 200.0)
    documents.index("bob", "his", 150.0)
    assert documents.indexed("ann", 50.0) == ["soon", "mid", "late"]
    documents.unindex("aNN", "mid")
    assert documents.indexed("Ann", 50.0) == ["soon", "late"]
    assert documents.indexed("bob", 50.0) == ["his"]


def test_an_index_keeps_times_to_the_millisecond_and_drops_what_expired_as_it_is_read(
        documents: Any) -> None:
    documents.index("ann", "b", 100.0001)  # the same millisecond as "a": ties by id
    documents.index("ann", "a", 100.0004)
    documents.index("ann", "c", 100.002)
    assert documents.indexed("ann", 99.0) == ["a", "b", "c"]
    assert documents.indexed("ann", 100.0003) == ["c"]  # expired in that millisecond
    documents.index("ann", "d", 100.5)
    assert documents.indexed("ann", 100.0) == ["c", "d"]  # the dropped stay dropped
