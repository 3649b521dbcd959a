"""Evaluations in Redis (why these keys and promises: :mod:`service.storage.evaluations`)::

    ttt:{ev:<id>}:evaluation    the evaluation as JSON, with its own TTL
    ttt:{acct:<h>}:evaluations  sorted set: the evaluations of account <h> (score: when
                                each expires, ms)

A change is the compare-and-set on the evaluation's one key of :mod:`.documents`, as a
tournament's is.
"""

from __future__ import annotations

from ..evaluations import Evaluation, EvaluationStore
from .connection import RedisConnection
from .documents import IndexedDocuments

__all__ = ["RedisEvaluations"]


def _key(evaluation_id: str) -> str:
    return f"ttt:{{ev:{evaluation_id}}}:evaluation"


def _id(evaluation: Evaluation) -> str:
    return evaluation.evaluation_id


class RedisEvaluations(IndexedDocuments[Evaluation], EvaluationStore):
    """The evaluations, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        super().__init__(connection, _key, Evaluation.from_json, _id, "evaluations")
