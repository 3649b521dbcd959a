"""Persistence behind small interfaces, one per concept, each implemented on Redis (the
stores the service runs on, :mod:`.redis`) and in memory (for fast tests, :mod:`.memory`).

========================  ===================================================  ==============
interface                 what                                                 module
========================  ===================================================  ==============
:class:`GameStore`        games and their events: create, load, the one        ``games``
                          atomic save, event reads, watching, ping
:class:`ReplyStore`       reading a seat's stored idempotent reply             ``replies``
:class:`RecordStore`      reading a finished game's record                     ``records``
:class:`LobbyStore`       the lobby's listings: list, relist, a listed page    ``lobby``
:class:`Schedule`         the move workers' schedule of visits                 ``schedule``
:class:`TicketStore`      single-use stream tickets                            ``tickets``
:class:`SeekBoard`        matchmaking's seekers, matched in one step           ``seeks``
:class:`LoadStore`        each client's games with bot seats, weighted         ``loads``
:class:`AccountStore`     accounts, their games and their event streams        ``accounts``
:class:`ChallengeStore`   challenges, changed by compare-and-set; each         ``challenges``
                          account's index of its own
:class:`RatingStore`      ratings, their history, the queue of rated games     ``ratings``
                          to apply, the leaderboards
:class:`LadderStore`      each preset's bot ladder                             ``ladder``
:class:`TournamentStore`  tournaments, changed by compare-and-set; each        ``tournaments``
                          account's index of its own; listed by status
:class:`WebhookQueue`     each account's webhook deliveries waiting            ``webhooks``
:class:`AnalysisStore`    finished games' analyses, and the analysis           ``analyses``
                          workers' queue
:class:`MistakeStore`     each account's analysed decisions that cost points   ``mistakes``
:class:`EvaluationStore`  bot accounts' evaluations against the reference      ``evaluations``
                          bots; each account's index of its own
========================  ===================================================  ==============

:class:`Stores` bundles one of each (and a second :class:`Schedule`, the webhook
deliveries'), built by :func:`redis_stores` (from the
configuration) or :func:`memory_stores`.
"""

from .accounts import Account, AccountStore, Note, folded
from .analyses import AnalysisState, AnalysisStore, QueuedAnalysis, QueueFullError
from .challenges import Challenge, ChallengeStore
from .errors import (
    GameExistsError,
    ReplyKeySupersededError,
    StorageError,
    StorageUnavailableError,
    UnknownGameError,
    VersionConflictError,
)
from .evaluations import (
    EVALUATION_STATUSES,
    AnchorRun,
    Evaluation,
    EvaluationStore,
    PlayedDeal,
)
from .games import GameRecord, GameStore, GameWatch
from .jobs import (
    ChallengeVisit,
    EvaluationVisit,
    GameVisit,
    Job,
    LadderVisit,
    RatingVisit,
    SeekVisit,
    TournamentVisit,
    member_of,
    parse_job,
)
from .ladder import LadderEntry, LadderStore
from .loads import LoadStore
from .lobby import LISTINGS, LobbyStore
from .mistakes import MISTAKES_KEPT, FiledMistake, MistakeStore
from .ratings import HistoryPoint, RatedSeat, RatingResult, RatingStore, SetAside, StoredRating
from .records import RecordStore
from .replies import ReplyStore, StoredReply
from .schedule import HEAVY, KEPT_EARLY_SECONDS, LANES, LIGHT, Lease, Schedule
from .seeks import Hold, Matching, MatchRecord, SeekBoard, SeekEntry, SeekRecord
from .stores import Stores, memory_stores, redis_stores
from .tickets import TicketStore
from .tournaments import (
    TOURNAMENT_STATUSES,
    PlayedRound,
    Tournament,
    TournamentStore,
    TournamentTable,
)
from .webhooks import Delivery, WebhookQueue

__all__ = [
    "EVALUATION_STATUSES",
    "HEAVY",
    "KEPT_EARLY_SECONDS",
    "LANES",
    "LIGHT",
    "LISTINGS",
    "MISTAKES_KEPT",
    "TOURNAMENT_STATUSES",
    "Account",
    "AccountStore",
    "AnalysisState",
    "AnalysisStore",
    "AnchorRun",
    "Challenge",
    "ChallengeStore",
    "ChallengeVisit",
    "Delivery",
    "Evaluation",
    "EvaluationStore",
    "EvaluationVisit",
    "FiledMistake",
    "GameExistsError",
    "GameRecord",
    "GameStore",
    "GameVisit",
    "GameWatch",
    "HistoryPoint",
    "Hold",
    "Job",
    "LadderEntry",
    "LadderStore",
    "LadderVisit",
    "Lease",
    "LoadStore",
    "LobbyStore",
    "MatchRecord",
    "Matching",
    "MistakeStore",
    "Note",
    "PlayedDeal",
    "PlayedRound",
    "QueueFullError",
    "QueuedAnalysis",
    "RatedSeat",
    "RatingResult",
    "RatingStore",
    "RatingVisit",
    "RecordStore",
    "ReplyKeySupersededError",
    "ReplyStore",
    "Schedule",
    "SeekBoard",
    "SeekEntry",
    "SeekRecord",
    "SeekVisit",
    "SetAside",
    "StorageError",
    "StorageUnavailableError",
    "StoredRating",
    "StoredReply",
    "Stores",
    "TicketStore",
    "Tournament",
    "TournamentStore",
    "TournamentTable",
    "TournamentVisit",
    "UnknownGameError",
    "VersionConflictError",
    "WebhookQueue",
    "folded",
    "member_of",
    "memory_stores",
    "parse_job",
    "redis_stores",
]
