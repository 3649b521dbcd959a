"""Errors of the service layer (not of the engine): each class is all there is to say about
one kind of refusal, its stable ``code`` and the HTTP ``status`` it is answered with.

The status is a plain number, so this layer still imports nothing of HTTP; the HTTP layer
(``service/api/problems.py``) reads both off the class, and so a new error is one class
here and nothing else.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = [
    "AlreadySeatedError",
    "AnalysisBusyError",
    "AnalysisNotRequestedError",
    "AuthError",
    "ChallengeClosedError",
    "ChallengeRefusedError",
    "EvaluationForBotsError",
    "GameAbortedError",
    "GameBusyError",
    "GameNotFinishedError",
    "HandleTakenError",
    "IdempotencyKeyReusedError",
    "IdempotencyKeySupersededError",
    "InvalidChallengeError",
    "InvalidCursorError",
    "InvalidEvaluationError",
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
    "TooManyEvaluationsError",
    "TooManyTournamentsError",
    "TournamentClosedError",
    "UnknownAccountError",
    "UnknownChallengeError",
    "UnknownEvaluationError",
    "UnknownMistakeError",
    "UnknownPresetError",
    "UnknownSeatError",
    "UnknownSeekError",
    "UnknownTournamentError",
    "VersionNotRecordedError",
]


class PlayError(Exception):
    """An error of the service layer; ``code`` is stable and machine-readable, ``status``
    the HTTP status of its problem. The root is never raised: each subclass declares both
    (checked when the class is made, so an error without a status cannot be served)."""

    code: ClassVar[str] = "play_error"
    status: ClassVar[int]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code == PlayError.code or not isinstance(getattr(cls, "status", None), int):
            raise TypeError(f"{cls.__name__} declares no code and status of its own")

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class AuthError(PlayError):
    """No token, or one that belongs to no seat of this game."""

    code = "invalid_token"
    status = 401


class SeatsOpenError(PlayError):
    """An action before every seat has been claimed."""

    code = "seats_open"
    status = 409


class SeatTakenError(PlayError):
    """Claiming a seat that is not open."""

    code = "seat_taken"
    status = 409


class UnknownSeatError(PlayError):
    """A seat number the game does not have."""

    code = "unknown_seat"
    status = 404


class PreconditionFailedError(PlayError):
    """``If-Match`` named a version that is no longer current."""

    code = "version_conflict"
    status = 412


class GameBusyError(PlayError):
    """An action without If-Match lost the race too many times in a row."""

    code = "version_conflict"
    status = 409


class IdempotencyKeyReusedError(PlayError):
    """The same Idempotency-Key sent with a different body."""

    code = "idempotency_key_reused"
    status = 422


class IdempotencyKeySupersededError(PlayError):
    """An older Idempotency-Key of a seat after its newer request was answered: the
    service keeps one reply per seat, and never acts on a superseded request again."""

    code = "idempotency_key_superseded"
    status = 409


class InvalidCursorError(PlayError):
    """A stream's cursor (``after`` / ``Last-Event-ID``) beyond the game's newest event."""

    code = "invalid_cursor"
    status = 422


class UnknownSeekError(PlayError):
    """No seek with this id: never made, removed, or expired unmatched."""

    code = "unknown_seek"
    status = 404


class SeekMatchedError(PlayError):
    """Removing a seek that was already matched: its seat is taken and waits."""

    code = "seek_matched"
    status = 409


class GameNotFinishedError(PlayError):
    """A record, or the view at a past version, asked of a game still being played:
    both reveal the seed and so every hidden card, which only the end may."""

    code = "game_not_finished"
    status = 409


class VersionNotRecordedError(PlayError):
    """``?version=N`` beyond the versions of the game's record."""

    code = "version_not_recorded"
    status = 422


class TooManyBotGamesError(PlayError):
    """The client's unfinished games with bot seats would weigh more than its cap."""

    code = "too_many_bot_games"
    status = 429


class RecordNotReplayableError(PlayError):
    """A past view asked of a record in a format this service no longer replays."""

    code = "record_not_replayable"
    status = 409


class AlreadySeatedError(PlayError):
    """An account claiming a second seat of a game it holds one of."""

    code = "already_seated"
    status = 409


class HandleTakenError(PlayError):
    """A handle taken already, in any case, or reserved."""

    code = "handle_taken"
    status = 409


class UnknownAccountError(PlayError):
    """No (open) account with this handle."""

    code = "unknown_account"
    status = 404


class LadderForBotsError(PlayError):
    """A human account asked to join the bot ladder."""

    code = "ladder_for_bots"
    status = 403


class InvalidLadderEntryError(PlayError):
    """A ladder entry's player counts or games at once out of range."""

    code = "invalid_ladder_entry"
    status = 422


class UnknownPresetError(PlayError):
    """No preset of this name: a rating, a history or a leaderboard of none."""

    code = "unknown_preset"
    status = 404


class UnknownChallengeError(PlayError):
    """No challenge with this id that the bearer's account is in."""

    code = "unknown_challenge"
    status = 404


class ChallengeClosedError(PlayError):
    """An answer to a challenge that is no longer pending."""

    code = "challenge_closed"
    status = 409


class ChallengeRefusedError(PlayError):
    """A challenge to an account that takes none from the challenger."""

    code = "challenge_refused"
    status = 403


class InvalidChallengeError(PlayError):
    """A challenge that cannot be made as asked: to oneself, a handle twice."""

    code = "invalid_challenge"
    status = 422


class NotYourAccountError(PlayError):
    """An account seated where it did not agree to sit: another's account in a game one
    creates, an account a path seats without its consent."""

    code = "not_your_account"
    status = 403


class RatedPairLimitedError(PlayError):
    """Two accounts asked for one more rated game together than a day allows."""

    code = "rated_pair_limited"
    status = 429


class TooManyChallengesError(PlayError):
    """One more pending challenge than an account may have made at once."""

    code = "too_many_challenges"
    status = 429


class UnknownTournamentError(PlayError):
    """No tournament with this id."""

    code = "unknown_tournament"
    status = 404


class InvalidTournamentError(PlayError):
    """A tournament that cannot be made as asked."""

    code = "invalid_tournament"
    status = 422


class TournamentClosedError(PlayError):
    """A join, leave or start of a tournament that has started, or is not the
    bearer's to start."""

    code = "tournament_closed"
    status = 409


class TooManyTournamentsError(PlayError):
    """One more open or running tournament than an account may have made at once."""

    code = "too_many_tournaments"
    status = 429


class InvalidSeekError(PlayError):
    """A seek that cannot be made as asked: rated without a turn clock."""

    code = "invalid_seek"
    status = 422


class InvalidWebhookUrlError(PlayError):
    """A webhook URL no webhook may go to: not http(s), with a user name or password,
    a host that does not resolve, or one on a non-public address (``WEBHOOK_ALLOW_PRIVATE``
    off); the message says which."""

    code = "invalid_webhook_url"
    status = 422


class NoWebhookError(PlayError):
    """A webhook secret asked of an account without a webhook URL."""

    code = "no_webhook"
    status = 409


class AnalysisNotRequestedError(PlayError):
    """The analysis of a game nobody asked to analyse (or whose analysis expired)."""

    code = "analysis_not_requested"
    status = 404


class UnknownMistakeError(PlayError):
    """A decision that is not among the account's mistakes (not its own, not analysed, of
    too little regret, or dropped as it grew old)."""

    code = "unknown_mistake"
    status = 404


class AnalysisBusyError(PlayError):
    """The analysis queue holds its most (``ANALYSIS_QUEUE_MAX``): asked again later, it
    is queued (the answer's ``Retry-After`` says when to ask)."""

    code = "analysis_busy"
    status = 503


class GameAbortedError(PlayError):
    """An analysis asked of a game that was aborted: it has no result to judge."""

    code = "game_aborted"
    status = 409


class EvaluationForBotsError(PlayError):
    """A human account asked for an evaluation (its bot plays the deals: a bot account's)."""

    code = "evaluation_for_bots"
    status = 403


class InvalidEvaluationError(PlayError):
    """An evaluation that cannot be made as asked: an anchor that is no reference bot,
    one named twice, a deal limit out of range."""

    code = "invalid_evaluation"
    status = 422


class UnknownEvaluationError(PlayError):
    """No evaluation with this id of the bearer's account (another's is not shown)."""

    code = "unknown_evaluation"
    status = 404


class TooManyEvaluationsError(PlayError):
    """A new evaluation while the account's last is not done (one at a time)."""

    code = "too_many_evaluations"
    status = 429
