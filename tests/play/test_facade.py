"""The service layer's public face (``service/play/__init__.py``) is what the layers above it
use, and no more: the HTTP layer and the workers import from it alone, every name it
offers is used by one of them, and nothing else is offered by accident (as httpx checks
its own ``__all__``). Anything else of the layer, such as each error class, the commit's
steps or the admission's paths, is imported from its module."""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator
from pathlib import Path

import service.play

SERVICE = Path(service.play.__file__).parents[1]
PLAY = Path(service.play.__file__).parent

PUBLIC = {
    # accounts, their keys and the account stream
    "ACCOUNT_PREFIX", "CHALLENGES_FROM", "HANDLE_PATTERN", "account_credential",
    "authenticate", "check_note_cursor", "close_account", "create_account", "hash_token",
    "identify", "is_account_key", "issue_account_ticket", "note_messages", "profile",
    "redeem_account_ticket", "rotate_key", "rotate_webhook_secret", "set_webhook",
    "update_settings", "WEBHOOK_TYPES",
    # games: create, claim, act, read, wait, stream
    "END_RETRY_MS", "TICKET_TTL_SECONDS", "LoadLimit", "Message", "act", "agreed_by_key",
    "ask_for_rematch", "changed_from", "check_cursor", "claim_seat", "create_game", "etag",
    "events_when", "game_record", "game_view", "game_view_bytes", "issue_ticket", "may_act",
    "on_turn", "redeem_ticket", "seat_of", "stream_messages", "view_at", "view_when",
    "STREAM_PAGE", "end_message",
    # the lobby, seeks, challenges, tournaments, the ladder, ratings, exports, analyses,
    # evaluations
    "MAX_PAGE", "lobby_page", "SEEK_TURN_SECONDS", "Seek", "cancel_seek", "new_holder",
    "open_seek", "seek_status", "stream_holds", "wait_for_match",
    # what the push tier's waits share with the web workers' (events, notes, seeks)
    "MAX_EVENTS", "events_page_bytes", "NOTES_PAGE", "note_message", "LOOK_SECONDS",
    "MADE_LOOK_SECONDS", "look_at_seek", "seek_pool", "StreamHolds",
    "CHALLENGE_DEFAULT_SECONDS", "CHALLENGE_MAX_SECONDS", "CHALLENGE_TURN_SECONDS",
    "MAX_TURN_SECONDS", "accept_challenge", "cancel_challenge", "challenge_json",
    "decline_challenge", "my_challenges", "my_games", "open_challenge", "read_challenge",
    "MAX_ENTRANTS", "MAX_ROUNDS", "create_tournament", "join_tournament",
    "leave_tournament", "read_tournament", "start_tournament", "tournament_json",
    "tournaments_page", "join_ladder", "ladder_view", "leave_ladder", "board", "history",
    "ExportQuery", "export_records", "analysis_of", "request_analysis", "requester_of",
    "MISTAKE_FLOOR", "answer_mistake", "my_mistakes",
    "DEFAULT_DEALS", "MAX_DEALS", "MIN_DEALS", "evaluation_json", "read_evaluation",
    "start_evaluation",
    # what the workers run
    "LEASE_SECONDS", "STALE_SECONDS", "deliver", "lease_seconds", "prune_listing",
    "rate_next", "retry_set_aside", "run_next", "visit",
    # the errors the HTTP layer raises or catches by name (the rest it maps by PlayError)
    "PlayError", "AuthError", "NotYourAccountError", "UnknownSeatError", "UnknownMistakeError",
}


def test_the_public_names_are_exactly_the_listed_ones() -> None:
    assert set(service.play.__all__) == PUBLIC


def test_the_package_binds_no_public_name_beyond_its_list_but_its_modules() -> None:
    bound = {name for name, value in vars(service.play).items()
             if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert bound == PUBLIC


def _uses_of_the_layer(path: Path) -> Iterator[tuple[str, str]]:
    """``(how, name)`` for each use of the service layer in ``path``: ``facade`` for a name
    taken from ``service.play`` (imported, or read as ``play.name``), ``module`` for an
    import from one of its modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "service.play":
                for alias in node.names:
                    yield "facade", alias.name
            elif node.module.startswith("service.play."):
                yield "module", node.module
            elif node.module == "service":
                aliases |= {a.asname or a.name for a in node.names if a.name == "play"}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("service.play"):
                    yield "module", alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases):
            yield "facade", node.attr


def _layers_above() -> list[Path]:
    return [path for path in sorted(SERVICE.rglob("*.py")) if PLAY not in path.parents]


def test_the_layers_above_import_the_service_layer_through_its_face_alone() -> None:
    uses = {(path.relative_to(SERVICE).as_posix(), how, name)
            for path in _layers_above() for how, name in _uses_of_the_layer(path)}
    assert {use for use in uses if use[1] == "module"} == set()
    assert {use for use in uses if use[2] not in PUBLIC} == set()


def test_every_public_name_is_used_by_a_layer_above() -> None:
    used = {name for path in _layers_above() for how, name in _uses_of_the_layer(path)
            if how == "facade"}
    assert PUBLIC - used == set()
