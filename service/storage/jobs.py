"""The move workers' jobs: what a schedule member names, as typed values parsed once.

A member of the move workers' schedule (:mod:`.schedule`) is a string in Redis; the rest
of the service sees it only as one of these values (:attr:`Lease.job`), and writes one
only through :func:`member_of`, so the worker dispatches on a type
(``service/play/jobs.py``), never on a string's prefix, and a new kind of job is one
class here and one case there.

    game id                    GameVisit: the game's next move, clock or left effects
    challenge:<id>             ChallengeVisit: its expiry, or the start of its game
    tournament:<id>            TournamentVisit: its start, its next round, its end
    ladder:<preset>            LadderVisit: a pairing pass of the preset's ladder
    seek:<pool>|<game id>      SeekVisit: the game of a match whose matcher died
    rate:<game id>             RatingVisit: a rated game's queueing, planned by a release
                               before the game's own events carried it (still taken)
    evaluation:<id>            EvaluationVisit: an evaluation's next deals, results, end

Game ids never hold a colon, so the first colon names the kind.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ChallengeVisit", "EvaluationVisit", "GameVisit", "Job", "LadderVisit", "RatingVisit", "SeekVisit",
           "TournamentVisit", "member_of", "parse_job"]


@dataclass(frozen=True, slots=True)
class GameVisit:
    game_id: str


@dataclass(frozen=True, slots=True)
class ChallengeVisit:
    challenge_id: str


@dataclass(frozen=True, slots=True)
class TournamentVisit:
    tournament_id: str


@dataclass(frozen=True, slots=True)
class LadderVisit:
    preset: str


@dataclass(frozen=True, slots=True)
class SeekVisit:
    pool: str
    game_id: str


@dataclass(frozen=True, slots=True)
class RatingVisit:
    game_id: str


@dataclass(frozen=True, slots=True)
class EvaluationVisit:
    evaluation_id: str


Job = (GameVisit | ChallengeVisit | TournamentVisit | LadderVisit | SeekVisit | RatingVisit
       | EvaluationVisit)


def member_of(job: Job) -> str:
    """The schedule member that names ``job``."""
    match job:
        case GameVisit(game_id):
            return game_id
        case ChallengeVisit(challenge_id):
            return f"challenge:{challenge_id}"
        case TournamentVisit(tournament_id):
            return f"tournament:{tournament_id}"
        case LadderVisit(preset):
            return f"ladder:{preset}"
        case SeekVisit(pool, game_id):
            return f"seek:{pool}|{game_id}"
        case RatingVisit(game_id):
            return f"rate:{game_id}"
        case EvaluationVisit(evaluation_id):
            return f"evaluation:{evaluation_id}"


def parse_job(member: str) -> Job:
    """The job a schedule member names (:func:`member_of`'s inverse)."""
    kind, colon, rest = member.partition(":")
    if not colon:
        return GameVisit(member)
    if kind == "challenge":
        return ChallengeVisit(rest)
    if kind == "tournament":
        return TournamentVisit(rest)
    if kind == "ladder":
        return LadderVisit(rest)
    if kind == "seek":
        pool, _, game_id = rest.partition("|")
        return SeekVisit(pool, game_id)
    if kind == "rate":
        return RatingVisit(rest)
    if kind == "evaluation":
        return EvaluationVisit(rest)
    raise ValueError(f"no job is named {member!r}")
