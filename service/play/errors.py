"""Errors of the service layer (not of the engine): each has a stable ``code``.

The HTTP layer maps each class to a status in one place (``service/api/problems.py``).
"""

from __future__ import annotations

__all__ = [
    "AlreadySeatedError",
    "AnalysisBusyError",
    "AnalysisNotRequestedError",
    "AuthError",
    "ChallengeClosedError",
    "ChallengeRefusedError",
    "GameAbortedError",
    "GameBusyError",
    "GameNotFinishedError",
    "HandleTakenError",
    "IdempotencyKeyReusedError",
    "IdempotencyKeySupersededError",
    "InvalidChallengeError",
    "InvalidCursorError",
    "InvalidLadderEntryError",
    "InvalidSeekError",
    "InvalidTournamentError",
    "InvalidWebhookUrlError",
    "LadderForBotsError",
    "NoWebhookError",
    "NotYourAccountError",
    "PlayError",
    "PreconditionFailedError",
    "RatedPairLimitedError",
    "RecordNotReplayableError",
    "SeatTakenError",
    "SeatsOpenError",
    "SeekMatchedError",
    "TooManyBotGamesError",
    "TooManyChallengesError",
    "TooManyTournamentsError",
    "TournamentClosedError",
    "UnknownAccountError",
    "UnknownChallengeError",
    "UnknownPresetError",
    "UnknownSeatError",
    "UnknownSeekError",
    "UnknownTournamentError",
    "VersionNotRecordedError",
]


class PlayError(Exception):
    """An error of the service layer; ``code`` is stable and machine-readable."""

    code = "play_error"

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class AuthError(PlayError):
    """No token, or one that belongs to no seat of this game (401)."""

    code = "invalid_token"


class SeatsOpenError(PlayError):
    """An action before every seat has been claimed (409)."""

    code = "seats_open"


class SeatTakenError(PlayError):
    """Claiming a seat that is not open (409)."""

    code = "seat_taken"


class UnknownSeatError(PlayError):
    """A seat number the game does not have (404)."""

    code = "unknown_seat"


class PreconditionFailedError(PlayError):
    """``If-Match`` named a version that is no longer current (412)."""

    code = "version_conflict"


class GameBusyError(PlayError):
    """An action without If-Match lost the race too many times in a row (409)."""

    code = "version_conflict"


class IdempotencyKeyReusedError(PlayError):
    """The same Idempotency-Key sent with a different body (422)."""

    code = "idempotency_key_reused"


class IdempotencyKeySupersededError(PlayError):
    """An older Idempotency-Key of a seat after its newer request was answered (409): the
    service keeps one reply per seat, and never acts on a superseded request again."""

    code = "idempotency_key_superseded"


class InvalidCursorError(PlayError):
    """A stream's cursor (``after`` / ``Last-Event-ID``) beyond the game's newest event (422)."""

    code = "invalid_cursor"


class UnknownSeekError(PlayError):
    """No seek with this id: never made, removed, or expired unmatched (404)."""

    code = "unknown_seek"


class SeekMatchedError(PlayError):
    """Removing a seek that was already matched: its seat is taken and waits (409)."""

    code = "seek_matched"


class GameNotFinishedError(PlayError):
    """A record, or the view at a past version, asked of a game still being played (409):
    both reveal the seed and so every hidden card, which only the end may."""

    code = "game_not_finished"


class VersionNotRecordedError(PlayError):
    """``?version=N`` beyond the versions of the game's record (422)."""

    code = "version_not_recorded"


class TooManyBotGamesError(PlayError):
    """The client's unfinished games with bot seats would weigh more than its cap (429)."""

    code = "too_many_bot_games"


class RecordNotReplayableError(PlayError):
    """A past view asked of a record in a format this service no longer replays (409)."""

    code = "record_not_replayable"


class AlreadySeatedError(PlayError):
    """An account claiming a second seat of a game it holds one of (409)."""

    code = "already_seated"


class HandleTakenError(PlayError):
    """A handle taken already, in any case, or reserved (409)."""

    code = "handle_taken"


class UnknownAccountError(PlayError):
    """No (open) account with this handle (404)."""

    code = "unknown_account"


class LadderForBotsError(PlayError):
    """A human account asked to join the bot ladder (403)."""

    code = "ladder_for_bots"


class InvalidLadderEntryError(PlayError):
    """A ladder entry's player counts or games at once out of range (422)."""

    code = "invalid_ladder_entry"


class UnknownPresetError(PlayError):
    """No preset of this name: a rating, a history or a leaderboard of none (404)."""

    code = "unknown_preset"


class UnknownChallengeError(PlayError):
    """No challenge with this id that the bearer's account is in (404)."""

    code = "unknown_challenge"


class ChallengeClosedError(PlayError):
    """An answer to a challenge that is no longer pending (409)."""

    code = "challenge_closed"


class ChallengeRefusedError(PlayError):
    """A challenge to an account that takes none from the challenger (403)."""

    code = "challenge_refused"


class InvalidChallengeError(PlayError):
    """A challenge that cannot be made as asked: to oneself, a handle twice (422)."""

    code = "invalid_challenge"


class NotYourAccountError(PlayError):
    """An account seated where it did not agree to sit: another's account in a game one
    creates, an account a path seats without its consent (403)."""

    code = "not_your_account"


class RatedPairLimitedError(PlayError):
    """Two accounts asked for one more rated game together than a day allows (429)."""

    code = "rated_pair_limited"


class TooManyChallengesError(PlayError):
    """One more pending challenge than an account may have made at once (429)."""

    code = "too_many_challenges"


class UnknownTournamentError(PlayError):
    """No tournament with this id (404)."""

    code = "unknown_tournament"


class InvalidTournamentError(PlayError):
    """A tournament that cannot be made as asked (422)."""

    code = "invalid_tournament"


class TournamentClosedError(PlayError):
    """A join, leave or start of a tournament that has started, or is not the
    bearer's to start (409)."""

    code = "tournament_closed"


class TooManyTournamentsError(PlayError):
    """One more open or running tournament than an account may have made at once (429)."""

    code = "too_many_tournaments"


class InvalidSeekError(PlayError):
    """A seek that cannot be made as asked: rated without a turn clock (422)."""

    code = "invalid_seek"


class InvalidWebhookUrlError(PlayError):
    """A webhook URL no webhook may go to (422): not http(s), with a user name or password,
    a host that does not resolve, or one on a non-public address (``WEBHOOK_ALLOW_PRIVATE``
    off); the message says which."""

    code = "invalid_webhook_url"


class NoWebhookError(PlayError):
    """A webhook secret asked of an account without a webhook URL (409)."""

    code = "no_webhook"


class AnalysisNotRequestedError(PlayError):
    """The analysis of a game nobody asked to analyse (or whose analysis expired) (404)."""

    code = "analysis_not_requested"


class AnalysisBusyError(PlayError):
    """The analysis queue holds its most (``ANALYSIS_QUEUE_MAX``): asked again later, it
    is queued (503 with Retry-After)."""

    code = "analysis_busy"


class GameAbortedError(PlayError):
    """An analysis asked of a game that was aborted: it has no result to judge (409)."""

    code = "game_aborted"
