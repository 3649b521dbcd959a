"""``/v1/rules``: the presets, fully resolved, so clients can show every option."""

from __future__ import annotations

import orjson
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from service.core.rules import PRESETS

from .docs import NO_BEARER
from .schemas import PresetsSchema
from .web import json_response

blp = Blueprint("rules", __name__, url_prefix="/v1/rules", description="Rule presets.")

_PRESETS = orjson.dumps({"presets": {name: r.to_dict() for name, r in PRESETS.items()}})


@blp.route("/presets")
class Presets(MethodView):
    @blp.doc(operationId="getPresets", security=NO_BEARER)
    @blp.response(200, PresetsSchema)
    def get(self) -> Response:
        """Every preset with every option resolved

        A rules spec anywhere in the API is `{"preset": name, …overrides}` with these
        option names.
        """
        return json_response(_PRESETS)
