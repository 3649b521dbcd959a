"""The service's app for ``gunicorn``, with one fault built in: a web worker that has just
saved a change kills itself (SIGKILL) before it runs the change's effects, when the test
has left the flag file ``$DIE_AFTER_SAVE`` (it is removed first, so one worker dies, once).

Why a patch in a test module rather than a switch in the service: this is the worst
moment for a process to die (its move stored, nothing it causes yet done), and only a
test wants a process to die there; ``service.play.commit`` runs a change's effects
through ``_fast_path`` after its save, which is the seam.
"""

from __future__ import annotations

import importlib
import os
import signal
from pathlib import Path

from flask import Flask

from service.app import create_app as service_app

__all__ = ["create_app"]

#: the module (the package's ``commit`` is its function of that name)
commit = importlib.import_module("service.play.commit")
_fast_path = commit._fast_path


def _dying(*args: object, **kwargs: object) -> None:
    flag = Path(os.environ["DIE_AFTER_SAVE"])
    try:
        flag.unlink()
    except FileNotFoundError:
        _fast_path(*args, **kwargs)  # type: ignore[arg-type]
        return
    os.kill(os.getpid(), signal.SIGKILL)


def create_app() -> Flask:
    commit._fast_path = _dying  # type: ignore[assignment]
    return service_app()
