"""The problem body (RFC 9457) that every error response carries."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..problems import PROBLEM_CODES


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

    class Meta:
        # Engine errors add their details (`field`, `option`, `card`, `current_seat`…).
        unknown = "include"
