"""The in-memory :class:`~service.storage.evaluations.EvaluationStore`: each evaluation as
its JSON bytes, changed by compare-and-set, and the accounts' indexes (:mod:`.documents`)."""

from __future__ import annotations

from ..evaluations import Evaluation, EvaluationStore
from .documents import IndexedDocuments

__all__ = ["MemoryEvaluations"]


def _id(evaluation: Evaluation) -> str:
    return evaluation.evaluation_id


class MemoryEvaluations(IndexedDocuments[Evaluation], EvaluationStore):
    """Evaluations and the accounts' indexes in dicts."""

    def __init__(self) -> None:
        super().__init__(Evaluation.from_json, _id)
