"""The challenge store's promises (``service/storage/challenges.py``), on a real Redis and in
memory, for challenges and for tournaments (kept the same way: a
:class:`~service.storage.TournamentStore` is a :class:`~service.storage.ChallengeStore`):
a document is kept as JSON; a change is a check-and-set whose step sees the document as
stored, is run again when another change lands while it runs (so no change is lost) and
leaves the document as it was when it returns ``None`` or raises; each account's index
lists its documents soonest to expire first, in any case of its handle, to the
millisecond, and drops the expired ones as it is read."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.storage import ChallengeStore, Stores


@pytest.fixture(params=["challenges", "tournaments"])
def documents(request: pytest.FixtureRequest, stores: Stores) -> ChallengeStore:
    """The challenges, and the tournaments kept as challenges are."""
    store: ChallengeStore = getattr(stores, request.param)
    return store


def doc(documents: ChallengeStore, doc_id: str, **fields: Any) -> dict[str, Any]:
    """A document of ``documents``' kind: its id under the store's id field."""
    id_field = "tournament_id" if hasattr(documents, "relist") else "challenge_id"
    return {id_field: doc_id, **fields}


def test_a_document_is_kept_as_json_and_a_loaded_copy_is_the_readers_own(
        documents: ChallengeStore) -> None:
    documents.create(doc(documents, "c1", to=("bob", "cy"), status="pending", n=1.5), 60)
    loaded = documents.load("c1")
    assert loaded == doc(documents, "c1", to=["bob", "cy"], status="pending", n=1.5)
    assert loaded is not None
    loaded["status"] = "changed by the reader"
    assert documents.load("c1") == doc(documents, "c1", to=["bob", "cy"], status="pending",
                                       n=1.5)
    assert documents.load("nope") is None


def test_a_change_writes_what_its_step_returns_and_answers_it(
        documents: ChallengeStore) -> None:
    documents.create(doc(documents, "c1", status="pending"), 60)
    seen: list[dict[str, Any]] = []

    def accept(current: dict[str, Any]) -> dict[str, Any]:
        seen.append(dict(current))
        return {**current, "status": "accepted", "by": ("bob",)}

    changed = documents.change("c1", accept)
    assert seen == [doc(documents, "c1", status="pending")]  # once, as stored
    assert changed == documents.load("c1") == doc(documents, "c1", status="accepted",
                                                   by=["bob"])


def test_a_step_that_returns_none_leaves_the_document_as_stored_whatever_it_did_to_it(
        documents: ChallengeStore) -> None:
    documents.create(doc(documents, "c1", status="pending"), 60)

    def meddle(current: dict[str, Any]) -> None:
        current["status"] = "expired"  # on its copy only: it returns None
        return None

    assert documents.change("c1", meddle) == doc(documents, "c1", status="pending")
    assert documents.load("c1") == doc(documents, "c1", status="pending")


def test_a_step_that_raises_leaves_the_document_and_the_error_goes_to_the_caller(
        documents: ChallengeStore) -> None:
    documents.create(doc(documents, "c1", status="pending"), 60)

    def refuse(current: dict[str, Any]) -> dict[str, Any]:
        current["status"] = "expired"
        raise LookupError("closed")

    with pytest.raises(LookupError):
        documents.change("c1", refuse)
    assert documents.load("c1") == doc(documents, "c1", status="pending")


def test_a_change_of_an_unknown_document_runs_no_step(documents: ChallengeStore) -> None:
    ran: list[object] = []
    assert documents.change("nope", lambda c: ran.append(c) or c) is None
    assert ran == []


def test_a_change_landing_while_a_step_runs_is_kept_and_the_step_runs_again_on_it(
        documents: ChallengeStore) -> None:
    """The step runs outside any lock: another change may land meanwhile (and must not
    wait for the step), and then the step is run again on what that change wrote."""
    documents.create(doc(documents, "c1", log=[]), 60)
    seen: list[list[str]] = []

    def other() -> None:
        documents.change("c1", lambda c: {**c, "log": [*c["log"], "other"]})

    def mine(current: dict[str, Any]) -> dict[str, Any]:
        seen.append(list(current["log"]))
        if len(seen) == 1:
            racer = threading.Thread(target=other)
            racer.start()
            racer.join(10)
            assert not racer.is_alive(), "a change waited for another's step to end"
        return {**current, "log": [*current["log"], "mine"]}

    assert documents.change("c1", mine) == doc(documents, "c1", log=["other", "mine"])
    assert seen == [[], ["other"]]


def test_racing_changes_are_each_applied_once(documents: ChallengeStore) -> None:
    documents.create(doc(documents, "c1", n=0), 60)

    def bump() -> None:
        for _ in range(25):
            documents.change("c1", lambda c: {**c, "n": c["n"] + 1})

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert documents.load("c1") == doc(documents, "c1", n=100)


def test_an_accounts_index_lists_its_documents_soonest_to_expire_first_in_any_case(
        documents: ChallengeStore) -> None:
    documents.index("Ann", "late", 300.0)
    documents.index("ann", "soon", 100.0)
    documents.index("ANN", "mid", 200.0)
    documents.index("bob", "his", 150.0)
    assert documents.indexed("ann", 50.0) == ["soon", "mid", "late"]
    documents.unindex("aNN", "mid")
    assert documents.indexed("Ann", 50.0) == ["soon", "late"]
    assert documents.indexed("bob", 50.0) == ["his"]


def test_an_index_keeps_times_to_the_millisecond_and_drops_what_expired_as_it_is_read(
        documents: ChallengeStore) -> None:
    documents.index("ann", "b", 100.0001)  # the same millisecond as "a": ties by id
    documents.index("ann", "a", 100.0004)
    documents.index("ann", "c", 100.002)
    assert documents.indexed("ann", 99.0) == ["a", "b", "c"]
    assert documents.indexed("ann", 100.0003) == ["c"]  # expired in that millisecond
    documents.index("ann", "d", 100.5)
    assert documents.indexed("ann", 100.0) == ["c", "d"]  # the dropped stay dropped
