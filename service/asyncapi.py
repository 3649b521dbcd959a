"""Print the AsyncAPI document the app serves (``make openapi`` writes it to ``openapi/``
beside the OpenAPI document it is built from).

Built without Redis: the document depends on the code only.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .api.asyncapi import asyncapi_document
from .openapi import document as openapi_document

__all__ = ["document", "main"]


def document() -> dict[str, Any]:
    """The AsyncAPI document as the running service serves it at ``/asyncapi.json``."""
    return asyncapi_document(openapi_document())


def main() -> None:
    json.dump(document(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
