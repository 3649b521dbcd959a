"""The worker processes beside the web workers: work that is not a request.

``python -m service.workers`` runs a move worker (:mod:`.moves`): it makes every move
the service owes (bot seats, stand-ins, turn clocks) and tidies the lobby. Requests
answer; workers work: a slow decision never holds a web worker's event loop, and the
workers run at a lower CPU priority (``WORKER_NICE``), so under load requests are served
first. Any number of replicas may run (the schedule leases each game to one of them).

This package imports nothing itself: ``python -m service.workers`` must unset the
image's ``PROMETHEUS_MULTIPROC_DIR`` before the service's modules (and their metrics) are
imported (``__main__.py``). Import :mod:`.moves` and :mod:`.metrics` by name.
"""
