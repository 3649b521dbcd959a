"""One store of each concept, bundled: what the service layer and the HTTP layer are handed.

Why a bundle: a move touches several concepts (the game and its events, the acting
seat's reply, the lobby, the move workers' schedule, the accounts told and their webhooks), and the play functions that make one
take the bundle; a function that needs one concept takes just that store. The bundle is
built in one place, from the configuration: :func:`redis_stores` for the service and the
move workers (every store on one shared connection), :func:`memory_stores` for fast tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from service.config import Config

from .accounts import AccountStore
from .analyses import AnalysisStore
from .challenges import ChallengeStore
from .evaluations import EvaluationStore
from .games import GameStore
from .ladder import LadderStore
from .loads import LoadStore
from .lobby import LobbyStore
from .memory import (
    MemoryAccounts,
    MemoryAnalyses,
    MemoryChallenges,
    MemoryEvaluations,
    MemoryGameStore,
    MemoryLadder,
    MemoryLoads,
    MemoryLobby,
    MemoryMistakes,
    MemoryRatings,
    MemoryRecords,
    MemoryReplies,
    MemorySchedule,
    MemorySeekBoard,
    MemoryTickets,
    MemoryTournaments,
    MemoryWebhooks,
    Shared,
)
from .mistakes import MistakeStore
from .ratings import RatingStore
from .records import RecordStore
from .redis import (
    RedisAccounts,
    RedisAnalyses,
    RedisChallenges,
    RedisConnection,
    RedisEvaluations,
    RedisGameStore,
    RedisLadder,
    RedisLoads,
    RedisLobby,
    RedisMistakes,
    RedisRatings,
    RedisRecords,
    RedisReplies,
    RedisSchedule,
    RedisSeekBoard,
    RedisTickets,
    RedisTournaments,
    RedisWebhooks,
)
from .replies import ReplyStore
from .schedule import Schedule
from .seeks import SeekBoard
from .tickets import TicketStore
from .tournaments import TournamentStore
from .webhooks import WebhookQueue

__all__ = ["Stores", "memory_stores", "redis_stores"]


def _nothing() -> None:
    return None


@dataclass(frozen=True, slots=True)
class Stores:
    """One store per concept, all on the same backend."""

    games: GameStore
    replies: ReplyStore
    records: RecordStore
    lobby: LobbyStore
    schedule: Schedule
    tickets: TicketStore
    seeks: SeekBoard
    loads: LoadStore
    accounts: AccountStore
    challenges: ChallengeStore
    tournaments: TournamentStore
    #: each account's webhook deliveries waiting, and which accounts have one due (a
    #: schedule of its own, taken by the delivery workers)
    webhooks: WebhookQueue
    webhook_schedule: Schedule
    #: the accounts' ratings, the queue of rated games to apply, the leaderboards
    ratings: RatingStore
    #: each preset's bot ladder
    ladder: LadderStore
    #: finished games' analyses and the analysis workers' queue
    analyses: AnalysisStore
    #: each account's own analysed decisions that cost points (``GET /v1/me/mistakes``)
    mistakes: MistakeStore
    #: bot accounts' evaluations against the reference bots, and each account's index
    evaluations: EvaluationStore
    #: releases what the stores share (Redis: the connections and the hub)
    release: Callable[[], None] = field(default=_nothing, compare=False, repr=False)

    def close(self) -> None:
        """Stop the hub (waking its waiters) and close the connections: a worker's exit."""
        self.release()


def redis_stores(config: Config) -> Stores:
    """The Redis stores ``config`` describes (the app's, and a move worker's), sharing one
    connection pool and one hub."""
    connection = RedisConnection(config.redis_url, timeout_seconds=config.redis_timeout_seconds,
                                 max_connections=config.redis_max_connections)
    return Stores(
        games=RedisGameStore(
            connection,
            ttl_seconds=config.game_ttl_seconds,
            finished_ttl_seconds=config.finished_game_ttl_seconds,
            open_ttl_seconds=config.open_game_ttl_seconds,
            reply_ttl_seconds=config.idempotency_ttl_seconds,
            record_ttl_seconds=config.record_ttl_seconds,
        ),
        replies=RedisReplies(connection),
        records=RedisRecords(connection),
        lobby=RedisLobby(connection, open_ttl_seconds=config.open_game_ttl_seconds),
        schedule=RedisSchedule(connection),
        tickets=RedisTickets(connection),
        # a match's record is kept as long as an open game: its seekers create the game
        seeks=RedisSeekBoard(connection, results_kept_seconds=config.open_game_ttl_seconds),
        loads=RedisLoads(connection),
        accounts=RedisAccounts(connection, finished_kept_seconds=config.record_ttl_seconds),
        challenges=RedisChallenges(connection),
        tournaments=RedisTournaments(connection),
        webhooks=RedisWebhooks(connection, cap=config.webhook_queue_max),
        webhook_schedule=RedisSchedule(connection, tag="hooks"),
        ratings=RedisRatings(connection),
        ladder=RedisLadder(connection),
        analyses=RedisAnalyses(connection, auto_per_day=config.analysis_auto_per_day,
                               max_queued=config.analysis_queue_max),
        mistakes=RedisMistakes(connection),
        evaluations=RedisEvaluations(connection),
        release=connection.close,
    )


def memory_stores(config: Config | None = None) -> Stores:
    """Fresh in-memory stores (``config``: only its ``open_game_ttl_seconds``, how long a
    match's record is kept, ``record_ttl_seconds``, how far back an account's finished
    index reaches, ``webhook_queue_max``, ``analysis_auto_per_day`` and
    ``analysis_queue_max``), for tests: nothing is shared with any
    other bundle."""
    shared = Shared()
    config = config or Config()
    kept = config.open_game_ttl_seconds
    return Stores(
        games=MemoryGameStore(shared),
        replies=MemoryReplies(shared),
        records=MemoryRecords(shared),
        lobby=MemoryLobby(),
        schedule=MemorySchedule(),
        tickets=MemoryTickets(),
        seeks=MemorySeekBoard(shared, results_kept_seconds=kept),
        loads=MemoryLoads(),
        accounts=MemoryAccounts(shared, finished_kept_seconds=config.record_ttl_seconds),
        challenges=MemoryChallenges(),
        tournaments=MemoryTournaments(),
        webhooks=MemoryWebhooks(cap=config.webhook_queue_max),
        webhook_schedule=MemorySchedule(),
        ratings=MemoryRatings(),
        ladder=MemoryLadder(),
        analyses=MemoryAnalyses(shared, auto_per_day=config.analysis_auto_per_day,
                                max_queued=config.analysis_queue_max),
        mistakes=MemoryMistakes(),
        evaluations=MemoryEvaluations(),
    )
