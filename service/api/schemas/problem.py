"""The problem body (RFC 9457) that every error response carries.

Why every extension member is listed: a client reads them (`current_seat` of a
`not_your_turn`, `current_version` of a stale `If-Match`, `newest` of a bad cursor…),
and a typed client generated from the document gets them typed only if the document
names them. tests/contract/test_openapi_rules.py holds the list to every keyword the
code's errors carry, so a new detail cannot go undocumented.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..problems import PROBLEM_CODES
from .cards import CARD, Cards


def _int(description: str) -> fields.Integer:
    return fields.Integer(metadata={"description": description})


class ProblemSchema(Schema):
    """An RFC 9457 problem: every error the service returns has this shape."""

    type = fields.String(
        required=True, metadata={"description": "`urn:three-thirteen:problem:<code>`."}
    )
    title = fields.String(required=True, metadata={"description": "Short summary of the status."})
    status = fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = fields.String(
        required=True, metadata={"description": "What went wrong, for a human."}
    )
    code = fields.String(
        required=True, validate=validate.OneOf(PROBLEM_CODES),
        metadata={"description": "Stable machine-readable code; each status's response "
                  "lists the codes it carries."},
    )
    instance = fields.String(metadata={"description": "The request path."})
    errors = fields.Dict(
        metadata={"description": "Per-field messages when a body or query did not validate."}
    )
    # extension members: present on the problems they concern
    current_seat = _int("`not_your_turn`: whose turn it is.")
    current_version = _int("`version_conflict` (412): the game's version now.")
    newest = _int("`invalid_cursor`: the newest event's `seq`, the largest valid cursor.")
    open_seats = fields.List(fields.Integer(), metadata={
        "description": "`seats_open`: the seats still to be claimed."})
    seat = fields.Raw(metadata={"description": "`unknown_seat`, `seat_taken`: the seat asked for (as "
                      "written in the path when it is no seat number).",
                      "oneOf": [{"type": "integer"}, {"type": "string"}]})
    card = fields.String(metadata={**CARD, "description": "`illegal_action`: the card concerned."})
    cards = Cards("`invalid_body` of a solve: the cards of the table meld concerned.")
    meld = fields.Raw(metadata={"description": "The meld concerned: its cards (`illegal_action`, "
                      "`invalid_input`) or its index in the request's `table` (`invalid_body`).",
                      "oneOf": [{"type": "integer"},
                                {"type": "array", "items": {"type": "string"}}]})
    text = fields.String(metadata={"description": "`invalid_card`: the text that is no card."})
    field = fields.String(metadata={"description": "`invalid_action`: the body field at fault."})
    option = fields.String(metadata={"description": "`invalid_rules`: the rules option at fault."})
    round = _int("`invalid_rules`: the round whose option is at fault.")
    steps = _int("`solve_too_complex`: the solver's step budget that ran out.")
    limit = _int("`too_many_waits`: the waiting requests this client may hold; "
                 "`too_many_games`: the games one stream may follow (500).")
    following = _int("`too_many_games`: the games the stream follows now.")
    adding = _int("`too_many_games`: the games the refused add would have added.")
    games = fields.List(fields.String(), metadata={
        "description": "`unknown_game` (a stream of many games): the ids of no game."})
    versions = _int("`version_not_recorded`: the last version of the game's record.")
    format = fields.String(metadata={"description": "`record_not_replayable`: the record's "
                                     "format."})
    held = fields.Float(metadata={"description": "`too_many_bot_games`: the weight of the "
                                  "unfinished games with bot seats this client holds."})
    weight = fields.Float(metadata={"description": "`too_many_bot_games`: what the refused "
                                    "game would weigh."})
    pending = _int("`too_many_challenges`: the pending challenges you have made.")
    challenge_status = fields.String(metadata={
        "description": "`challenge_closed`: what became of the challenge (`accepted`, "
                       "`declined`, `canceled`, `expired`)."})
    cap = fields.Float(metadata={"description": "`too_many_bot_games`: the weight one client "
                                 "may hold (`BOT_GAMES_PER_ADDRESS`); `too_many_challenges`: "
                                 "the pending challenges one account may have made; "
                                 "`rated_pair_limited`: the rated games two accounts may play "
                                 "together in a day; `too_many_evaluations`: the evaluations "
                                 "not done one account may have."})
    evaluation_id = fields.String(metadata={
        "description": "`too_many_evaluations`: your evaluation not done yet."})
    pair = fields.List(fields.String(), metadata={
        "description": "`rated_pair_limited`: the two accounts."})
    available = fields.List(fields.String(), metadata={
        "description": "`not_acceptable`: the media types the resource has."})
