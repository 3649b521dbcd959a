"""In-memory implementations of the storage interfaces, for fast tests only.

Each keeps the promises its interface states, in one process and without TTLs, so the
service layer (``tests/play``) and matchmaking run in milliseconds without Redis; the
contract suites of ``tests/storage`` run the same tests on these and on the Redis
stores, so where the two differ, a test fails (Redis, what the service runs on, is the
reference: times in whole milliseconds and documents as JSON, :mod:`.kept`). The
games, replies, records and seek board of one bundle share one lock and one set of
channels (:mod:`.shared`), as the Redis stores share a server; build them together with
:func:`service.storage.memory_stores`.
"""

from .accounts import MemoryAccounts
from .analyses import MemoryAnalyses
from .challenges import MemoryChallenges
from .evaluations import MemoryEvaluations
from .games import MemoryGameStore
from .ladder import MemoryLadder
from .loads import MemoryLoads
from .lobby import MemoryLobby
from .mistakes import MemoryMistakes
from .ratings import MemoryRatings
from .records import MemoryRecords
from .replies import MemoryReplies
from .schedule import MemorySchedule
from .seeks import MemorySeekBoard
from .shared import Shared
from .tickets import MemoryTickets
from .tournaments import MemoryTournaments
from .webhooks import MemoryWebhooks

__all__ = [
    "MemoryAccounts",
    "MemoryAnalyses",
    "MemoryChallenges",
    "MemoryEvaluations",
    "MemoryGameStore",
    "MemoryLadder",
    "MemoryLoads",
    "MemoryLobby",
    "MemoryMistakes",
    "MemoryRatings",
    "MemoryRecords",
    "MemoryReplies",
    "MemorySchedule",
    "MemorySeekBoard",
    "MemoryTickets",
    "MemoryTournaments",
    "MemoryWebhooks",
    "Shared",
]
