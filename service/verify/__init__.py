"""Game records and their verification, with the engine only.

* :mod:`.record` builds a finished game's record from its event log;
* :mod:`.replay` turns a record back into the state at every version;
* :mod:`.check` confirms a record: the seed commitment, every action, every score;
* :mod:`.sheet` prints a record as a score sheet a person reads;
* ``python -m service.verify record.json`` runs the check (docs/records.md).
"""

from .check import verify
from .record import RECORD_FORMAT, build_record
from .replay import ReplayError, replay, state_at
from .sheet import score_sheet

__all__ = ["RECORD_FORMAT", "ReplayError", "build_record", "replay", "score_sheet", "state_at",
           "verify"]
