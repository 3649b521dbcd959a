"""Print the OpenAPI document the app serves (``make openapi`` writes it to ``openapi/``).

Built without Redis: the document depends on the code only.
"""

from __future__ import annotations

import json
import sys

from .app import create_app

__all__ = ["document", "main"]


def document() -> dict:
    """The OpenAPI document as the running service serves it at ``/openapi.json``."""
    app = create_app()
    with app.app_context():
        return app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()


def main() -> None:
    json.dump(document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
