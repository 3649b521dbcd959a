"""A finished game's analysis: the response body of ``GET /v1/games/{id}/analysis``
(docs/analysis.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.analysis.judge import JUDGEMENTS
from service.engine.seats import ACTORS

from .cards import CARD, RANKS, Card, Melds

__all__ = ["AnalysedActionSchema", "AnalysisSchema", "PositionSchema"]


class AnalysedActionSchema(Schema):
    """A turn move: the one taken, or the best candidate."""

    type = fields.String(required=True, validate=validate.OneOf(["draw", "discard", "go_out"]))
    source = fields.String(validate=validate.OneOf(["stock", "discard"]),
                           metadata={"description": "`draw` only."})
    card = Card()  # discard only
    discard = Card()  # go_out only
    melds = Melds("`go_out` only, as taken: the melds laid.")


class PositionSchema(Schema):
    """What a seat saw before a decision: enough to show it as a puzzle."""

    round = fields.Integer(required=True, metadata={"description": "The round, from 1."})
    hand_size = fields.Integer(required=True)
    wild_rank = fields.String(required=True, allow_none=True, validate=validate.OneOf(RANKS),
                              metadata={"description": "The round's wild rank (null: none)."})
    phase = fields.String(required=True, metadata={
        "description": "What the seat had to do: `draw`, `discard`, or a final turn's "
                       "`final_draw`, `final_discard`."})
    hand = fields.List(Card(), required=True, metadata={
        "description": "The seat's hand before the move (after its draw, for a discard)."})
    discard_top = Card(required=True, allow_none=True)
    stock_count = fields.Integer(required=True)


class RoundFiguresSchema(Schema):
    round = fields.Integer(required=True, metadata={"description": "The round, from 1."})
    score = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The penalty the seat scored in the round (null: the game ended "
                       "before the round did)."})
    decisions = fields.Integer(required=True)
    accuracy = fields.Float(required=True, allow_none=True)
    expected_loss = fields.Float(required=True)
    error_rate = fields.Float(required=True, allow_none=True)
    luck = fields.Float(required=True)


class SeatAnalysisSchema(Schema):
    seat = fields.Integer(required=True)
    decisions = fields.Integer(required=True, metadata={
        "description": "The seat's player's decisions judged: its human's moves (`by: "
                       "player`), or a bot seat's bot's (`by: service`: the bot is its "
                       "player). Only these count in the figures below."})
    service_moves = fields.Integer(required=True, metadata={
        "description": "Draws, discards and go-outs the service made for the seat's "
                       "player (the stand-in of an away or resigned seat, the rest of a "
                       "turn whose clock ran out; `by: service`): not the player's "
                       "decisions, so not judged and not counted. 0 for a bot seat."})
    unjudged = fields.Integer(required=True, metadata={
        "description": "The player's decisions left unjudged because the analysis' step "
                       "budget ran out (a very long game): not counted either."})
    accuracy = fields.Float(required=True, allow_none=True, metadata={
        "description": "The mean of the judged decisions' accuracies, 0-100: each is "
                       "100·exp(−regret/10) (null: no decision).", "example": 93.5})
    expected_loss = fields.Float(required=True, metadata={
        "description": "The sum of the regrets: the points the decisions cost on average "
                       "against the best candidates.", "example": 42.5})
    inaccuracies = fields.Integer(required=True, metadata={"description": "Regret 2 to 5."})
    mistakes = fields.Integer(required=True, metadata={"description": "Regret 5 to 10."})
    blunders = fields.Integer(required=True, metadata={"description": "Regret 10 or more."})
    error_rate = fields.Float(required=True, allow_none=True, metadata={
        "description": "The regrets of its decisions that were not forced, summed, over "
                       "their number: points lost a decision (null: none).",
        "example": 0.42})
    forced = fields.Integer(required=True, metadata={
        "description": "Its judged decisions that had one move only (one draw source, one "
                       "distinct card to discard): left out of `error_rate`."})
    luck = fields.Float(required=True, metadata={
        "description": "The sum of its draws' `luck`: the points the cards it drew saved "
                       "it against the mean of the cards they could have been "
                       "(positive: lucky).", "example": 6.5})
    total = fields.Integer(required=True, metadata={
        "description": "Its game total (penalty points; lowest wins)."})
    adjusted_total = fields.Float(required=True, metadata={
        "description": "Its game total with its luck taken out, `total + luck`: what it "
                       "would have scored had its draws been average.", "example": 61.5})
    rounds = fields.List(fields.Nested(RoundFiguresSchema), required=True, metadata={
        "description": "Each round: its score, and the figures above of its decisions "
                       "there."})


class DecisionSchema(Schema):
    version = fields.Integer(required=True, metadata={
        "description": "The game's version before the move: `GET /v1/games/{id}"
                       "?version=N` with the seat's token shows the position as it saw it."})
    seat = fields.Integer(required=True)
    by = fields.String(required=True, validate=validate.OneOf(ACTORS), metadata={
        "description": "Who made the move, as the record says: the seat's `player`, or "
                       "the `service` for a bot seat (its bot, which is that seat's "
                       "player). The service's moves for a human seat (a stand-in's, a "
                       "timed-out turn's) are not judged, so not listed."})
    action = fields.Nested(AnalysedActionSchema, required=True)
    best = fields.Nested(AnalysedActionSchema, required=True, metadata={
        "description": "The candidate of the lowest expected round penalty (the move "
                       "taken on a tie)."})
    regret = fields.Float(required=True, metadata={
        "description": "The expected round penalty of the move taken minus the best's, in "
                       "points, judged from what the seat could see then and nothing more."})
    standard_error = fields.Float(required=True, metadata={
        "description": "The regret's standard error over the sampled worlds (0: exact)."})
    judgement = fields.String(required=True, allow_none=True,
                              validate=validate.OneOf(JUDGEMENTS), metadata={
                                  "description": "Of the regret less twice its standard "
                                                 "error: null below 2 points, `inaccuracy` "
                                                 "from 2, `mistake` from 5, `blunder` from 10."})
    exact = fields.Boolean(required=True, metadata={
        "description": "A final turn's discard, judged exactly (no sampling)."})
    worlds = fields.Integer(required=True, metadata={
        "description": "Deals of the unseen cards its first look drew: the settings' "
                       "`worlds`, fewer where a long game's step budget ran short (then "
                       "`values` may list fewer candidates too); 0 when exact."})
    values = fields.Dict(keys=fields.String(), values=fields.Float(), required=True, metadata={
        "description": "The expected round penalty of each candidate compared, by name "
                       "(`draw:stock`, `draw:discard`, `discard:QH`, `go_out`).",
        "example": {"discard:QH": 12.5, "discard:7C": 9.75}})
    relooked = fields.Boolean(required=True, metadata={
        "description": "Judged on a second look: the first named it a mistake or a "
                       "blunder, and the move taken and the best were played out again on "
                       "`relook` times the worlds, fresh ones (at most a tenth of a game's "
                       "decisions)."})
    policy = fields.String(required=True, metadata={
        "description": "The policy bot's move here, by the names of `values`: the move "
                       "the playouts assume of the seat.",
        "example": "discard:7C"})
    luck = fields.Float(required=True, allow_none=True, metadata={
        "description": "A draw's luck, in points: the expected round penalty over the "
                       "cards it could have drawn (those the seat had not seen) less that "
                       "after the card it got (positive: the card saved points). 0 from "
                       "the discard pile; null on a discard or a go-out.", "example": -3.5})
    drawn = fields.String(required=True, allow_none=True, metadata={
        **CARD, "description": "The card a draw from the stock gave the seat (null for "
                               "other decisions)."})
    forced = fields.Boolean(required=True, metadata={
        "description": "The seat had one move only here."})
    position = fields.Nested(PositionSchema, required=True)


def _no_turns() -> int:
    """A callable ``load_default`` (0: played to the round's end, what analyses made
    before ``turns`` did): applied, but not written in the document as a default, which
    generators would read as a field always sent (see ``absent_is_null``)."""
    return 0


def _no_lookahead() -> int | None:
    """A callable ``load_default`` (none given: analyses made before ``lookahead``), as
    :func:`_no_turns`."""
    return None


class SettingsSchema(Schema):
    worlds = fields.Integer(required=True, metadata={
        "description": "Deals of the unseen cards drawn per decision, at most (each "
                       "decision's `worlds` says how many it got)."})
    candidates = fields.Integer(required=True, metadata={
        "description": "Discards compared besides the one taken."})
    policy = fields.String(required=True, metadata={
        "description": "The bot that plays every seat in the playouts."})
    seed = fields.String(required=True)
    relook = fields.Integer(required=True, metadata={
        "description": "A decision the first look names an inaccuracy, a mistake or a "
                       "blunder is judged again on this many times the worlds, fresh ones "
                       "(1: never)."})
    turns = fields.Integer(load_default=_no_turns, metadata={
        "description": "A playout stops once the seat has played this many turns after "
                       "the decision's, its score read off its hand by the solver (0: "
                       "played to the round's end; absent in analyses made before)."})
    lookahead = fields.Integer(allow_none=True, load_default=_no_lookahead, metadata={
        "description": "With the strong policy: the work units of look-ahead each of the "
                       "seat's own moves may spend in a playout (the other seats look "
                       "none ahead)."})


class StepsSchema(Schema):
    budget = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The most engine steps (actions applied in playouts, and a fixed "
                       "charge per decision) the analysis could take (null: no bound)."})
    spent = fields.Integer(required=True, metadata={"description": "The steps it took."})


class AnalysisSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["queued", "running", "done"]))
    progress = fields.Float(required=True, validate=validate.Range(0, 1), metadata={
        "description": "The share of the decisions judged (reported every few seconds)."})
    settings = fields.Nested(SettingsSchema, metadata={"description": "Once done."})
    steps = fields.Nested(StepsSchema, metadata={
        "description": "Once done: the work the analysis could take and took."})
    seats = fields.List(fields.Nested(SeatAnalysisSchema), required=True, metadata={
        "description": "Each seat summed up, once done (empty before)."})
    decisions = fields.List(fields.Nested(DecisionSchema), required=True, metadata={
        "description": "Every draw, discard and go-out the seats' players made, in order, "
                       "once done (empty before); not those the service made for a human "
                       "seat, nor those the step budget left unjudged."})
