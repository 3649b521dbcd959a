"""The collector settings of a serving process (``service/gc_tuning.py``)."""

from __future__ import annotations

import gc

from service import gc_tuning
from service.app import create_app
from service.config import Config


def test_building_the_app_raises_the_young_threshold_and_freezes_the_app() -> None:
    gc_tuning._tuned_in = None  # as in a fresh worker
    gc.unfreeze()
    create_app(Config(redis_url="redis://127.0.0.1:1/0"))
    assert gc.get_threshold()[0] == gc_tuning.YOUNG_THRESHOLD
    assert gc.get_freeze_count() > 10_000  # the modules and the app


def test_the_tuning_runs_once_per_process() -> None:
    gc_tuning.tune_gc_for_requests()
    frozen = gc.get_freeze_count()
    keep = [[i] for i in range(1000)]  # new containers: a second freeze would take them
    gc_tuning.tune_gc_for_requests()
    assert gc.get_freeze_count() < frozen + 1000  # (frozen objects may be freed meanwhile)
    assert keep


def test_a_forked_worker_tunes_itself(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    gc_tuning.tune_gc_for_requests()
    monkeypatch.setattr(gc_tuning, "_tuned_in", -1)  # as if this were a new process
    before = gc.get_freeze_count()
    keep = [[i] for i in range(1000)]
    gc_tuning.tune_gc_for_requests()
    assert gc.get_freeze_count() >= before + 1000
    assert keep
