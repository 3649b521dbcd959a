"""An account's mistakes as puzzles: ``GET /v1/me/mistakes`` and the answer to one,
``POST /v1/me/mistakes/{game_id}/{version}`` (docs/analysis.md#your-mistakes)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.analysis.judge import JUDGEMENTS

from .analysis import AnalysedActionSchema, PositionSchema
from .cards import ref
from .rules import RulesSchema

__all__ = ["ANSWER_KINDS", "MISTAKE_ANSWER", "MistakeAnswerResultSchema", "MistakesSchema"]

#: The answers a puzzle takes: the turn moves, as ``POST …/actions`` takes them.
ANSWER_KINDS = {"draw": "DrawAction", "discard": "DiscardAction", "go_out": "GoOutAction"}
#: The answer's body: one of those actions, told apart by ``type``.
MISTAKE_ANSWER = {
    "oneOf": [ref(name) for name in ANSWER_KINDS.values()],
    "discriminator": {"propertyName": "type",
                      "mapping": {k: f"#/components/schemas/{v}"
                                  for k, v in ANSWER_KINDS.items()}},
}


class MistakeSchema(Schema):
    """One of your decisions that cost points, as a puzzle: the position as your seat saw
    it, the move you made, the best one and what each candidate was worth."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "The game's version before the move (as in its analysis)."})
    seat = fields.Integer(required=True)
    regret = fields.Float(required=True, metadata={
        "description": "The points the move taken cost against the best, in expected "
                       "round penalty (at least the listing's `min_regret`)."})
    standard_error = fields.Float(required=True)
    judgement = fields.String(required=True, allow_none=True,
                              validate=validate.OneOf(JUDGEMENTS))
    action = fields.Nested(AnalysedActionSchema, required=True, metadata={
        "description": "The move you made."})
    best = fields.Nested(AnalysedActionSchema, required=True, metadata={
        "description": "The best move the analysis found; it saves `regret` points."})
    values = fields.Dict(keys=fields.String(), values=fields.Float(), required=True, metadata={
        "description": "The expected round penalty of each candidate compared, by name "
                       "(`draw:stock`, `discard:QH`, `go_out`)."})
    exact = fields.Boolean(required=True, metadata={
        "description": "A final turn's discard, valued exactly."})
    position = fields.Nested(PositionSchema, required=True)
    preset = fields.String(required=True, allow_none=True)
    rules = fields.Nested(RulesSchema, required=True, metadata={
        "description": "The game's rules (what melds and wild cards count)."})
    ended = fields.String(required=True, metadata={
        "description": "When the game ended (RFC 3339).", "format": "date-time"})


class MistakesSchema(Schema):
    mistakes = fields.List(fields.Nested(MistakeSchema), required=True, metadata={
        "description": "Newest game first; within a game, the latest decision first."})
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "Pass as `cursor` for the next page (null: no more)."})


class MistakeAnswerResultSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    answer = fields.Nested(AnalysedActionSchema, required=True, metadata={
        "description": "Your answer, as sent."})
    correct = fields.Boolean(required=True, metadata={
        "description": "Your answer is the best move, or a candidate valued as well."})
    best = fields.Nested(AnalysedActionSchema, required=True)
    action = fields.Nested(AnalysedActionSchema, required=True, metadata={
        "description": "The move you made in the game."})
    regret = fields.Float(required=True, metadata={
        "description": "The points the best move saves against the move you made."})
    saves = fields.Float(required=True, allow_none=True, metadata={
        "description": "The points your answer saves against the move you made (negative: "
                       "it costs more); null for a discard the analysis did not compare."})
