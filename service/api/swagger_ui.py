"""Swagger UI's own files for ``/docs``, served by the service itself.

flask-smorest renders ``/docs`` as a page that loads ``swagger-ui-bundle.js``,
``swagger-ui-standalone-preset.js`` and ``swagger-ui.css`` from
``OPENAPI_SWAGGER_UI_URL``. Pointed at a CDN, that page is blank offline, behind a
firewall or under a strict Content-Security-Policy. PyPI's ``swagger-ui-bundle`` ships
the files; this blueprint serves them from its folder (the way that package documents),
only the three the page loads and their source maps, not the package's demo pages.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, send_from_directory
from swagger_ui_bundle import swagger_ui_path

__all__ = ["SWAGGER_UI_URL", "blp"]

#: What ``OPENAPI_SWAGGER_UI_URL`` is set to: the folder the page's files are read from.
SWAGGER_UI_URL = "/docs/swagger-ui/"

_PAGE_FILES = ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css")
FILES = frozenset({*_PAGE_FILES, *(f"{name}.map" for name in _PAGE_FILES)})

# a plain Flask blueprint: these files are not part of the API, so not in its OpenAPI document
blp = Blueprint("swagger_ui", __name__)


@blp.get(f"{SWAGGER_UI_URL}<name>")
def swagger_ui_file(name: str) -> Response:
    """One of Swagger UI's files (conditional GETs answered by ``send_from_directory``)."""
    if name not in FILES:
        abort(404)
    return send_from_directory(swagger_ui_path, name)
