"""Evaluations: request and response bodies (docs/evaluations.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.bots import BOTS
from service.core.rules import PRESETS
from service.play import DEFAULT_DEALS, MAX_DEALS, MIN_DEALS
from service.storage import EVALUATION_STATUSES

from .cards import StrictSchema, absent_is_null

__all__ = ["EvaluationRequestSchema", "EvaluationResultSchema", "EvaluationSchema"]

#: What an anchor's deals stopped on: the sequential test's verdict either way, the deal
#: limit, or the account closed.
STOPS = ["stronger", "weaker", "deal_limit", "canceled"]
#: A seed of the deals: what deals deal ``n`` as ``<seed>-<n>`` (a game's seed is at most
#: 64 characters).
SEED_PATTERN = r"^[A-Za-z0-9_.:-]{1,48}$"


def _deals_default() -> int:
    return DEFAULT_DEALS  # a callable: see absent_is_null


class EvaluationRequestSchema(StrictSchema):
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)), metadata={
        "description": "The rules the deals are played by."})
    anchors = fields.List(
        fields.String(validate=validate.OneOf(list(BOTS))), required=True,
        validate=validate.Length(1, len(BOTS)),
        metadata={"description": "The reference bots to measure your bot against, each "
                  "once."})
    max_deals = fields.Integer(
        load_default=_deals_default, validate=validate.Range(MIN_DEALS, MAX_DEALS),
        metadata={"description": f"The most deals per anchor (default {DEFAULT_DEALS}), "
                  "each played twice, once from each seat; fewer when the sequential test "
                  "decides first."})
    seed = fields.String(load_default=absent_is_null, allow_none=True,
                         validate=validate.Regexp(SEED_PATTERN),
                         metadata={"pattern": SEED_PATTERN, "description": "Deal `n` is "
                                   "dealt from `<seed>-<n>` (the same deals for every "
                                   "anchor); absent: the service draws one."})


class EvaluationResultSchema(Schema):
    anchor = fields.String(required=True)
    deals = fields.Integer(required=True, metadata={
        "description": "Deals finished against this anchor (two games each)."})
    elo = fields.Float(required=True, allow_none=True, metadata={
        "description": "Your bot's Elo difference from the anchor (positive: stronger), "
                       "read from `share`; null before a deal is over."})
    elo_low = fields.Float(required=True, allow_none=True, metadata={
        "description": "The 95% interval's lower end."})
    elo_high = fields.Float(required=True, allow_none=True, metadata={
        "description": "The 95% interval's upper end."})
    share = fields.Float(required=True, allow_none=True, metadata={
        "description": "How often your bot finished ahead of the anchor (a tie: a half), "
                       "per deal, averaged."})
    stop = fields.String(required=True, allow_none=True, validate=validate.OneOf(STOPS),
                         metadata={"description": "Why the deals stopped: the sequential "
                                   "test found your bot `stronger` or `weaker` than the "
                                   "anchor, the `deal_limit` was reached, or the account "
                                   "closed (`canceled`); null while they go on."})
    games = fields.List(fields.String(), metadata={
        "description": "The games dealt against this anchor, two per deal (your seat "
                       "first, then the anchor's), each kept with its record as any game."})


class _Sprt(Schema):
    elo0 = fields.Float(required=True)
    elo1 = fields.Float(required=True)
    alpha = fields.Float(required=True)
    beta = fields.Float(required=True)


class EvaluationSchema(Schema):
    evaluation_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(EVALUATION_STATUSES))
    account = fields.String(required=True)
    preset = fields.String(required=True)
    seed = fields.String(required=True, allow_none=True, metadata={
        "description": "Deal `n` is dealt from `<seed>-<n>`. A seed the service drew is "
                       "null until the evaluation is `done` (it deals every card)."})
    anchors = fields.List(fields.String(), required=True)
    max_deals = fields.Integer(required=True)
    sprt = fields.Nested(_Sprt, required=True, metadata={
        "description": "The sequential test that stops an anchor's deals: your bot `elo0` "
                       "against `elo1` points from the anchor, at error rates `alpha` and "
                       "`beta`."})
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    finished_at = fields.String(required=True, allow_none=True,
                                metadata={"format": "date-time"})
    results = fields.List(fields.Nested(EvaluationResultSchema), required=True)
