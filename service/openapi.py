"""Print the OpenAPI document the app serves (``make openapi`` writes it to ``openapi/``).

Built without Redis: the document depends on the code only.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .app import create_app

__all__ = ["document", "main"]


def document() -> dict[str, Any]:
    """The OpenAPI document as the running service serves it at ``/openapi.json``."""
    app = create_app()
    with app.app_context():
        spec: dict[str, Any] = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
        return spec


def main() -> None:
    json.dump(document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
