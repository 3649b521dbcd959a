"""What a seat (or a spectator) may see: the state of the API contract (docs/api.md),
minus ``game_id`` and the open seats (its shape: ``service.core.shapes.View``).

The view is built field by field from the state, never by copying it, so a
secret cannot leak by accident: another seat's hand, the stock's order, the
seed and its salt appear nowhere until the game is finished (then the seed and
salt are revealed so anyone can check the commitment and replay the deal).
"""

from __future__ import annotations

from service.core.cards import card_name, card_names, rank_name
from service.core.instants import instant
from service.core.shapes import View

from .events import round_result_dict, table_dicts
from .legal import legal_actions
from .rounds import winners
from .seats import PLAYER, may_abort, player_of, seat_kind
from .shoe import commitment
from .state import GameState

__all__ = ["view"]


def view(state: GameState, seat: int | None, by: str = PLAYER) -> View:
    """The state as ``seat`` sees it (``None``: a spectator), with the moves ``by`` (its
    player, or the service playing it) may make now."""
    if seat is not None and not 0 <= seat < state.players:
        raise ValueError(f"there is no seat {seat} in this game")
    out: View = {
        "version": state.version,
        "status": state.status,
        # the rules as this table plays them: "auto" decks resolved to the number in use
        "rules": {**state.rules.to_dict(), "decks": state.rules.decks_for(state.players)},
        "seed_commitment": commitment(state.seed, state.seed_salt),
        "seeded_by_creator": state.seeded_by_creator,
        "rated": state.rated,
        "round": {
            "number": state.round_index + 1,
            "rounds": state.rules.rounds,
            "hand_size": state.hand_size,
            "wild_rank": rank_name(state.wild_rank),
            "dealer": state.dealer,
            "current_seat": state.current_seat,
            "phase": state.phase,
            "turn_timed_out": state.turn_timed_out,
            "turns": state.turns,
            "stock_count": len(state.stock),
            "discard_top": card_name(state.discard[-1]) if state.discard else None,
            "discard_count": len(state.discard),
            "went_out": state.went_out,
            "contract": (
                None
                if state.contract is None
                else {"sets": state.contract[0], "runs": state.contract[1]}
            ),
            "table": table_dicts(state.table),
        },
        "players": [
            {
                "seat": s,
                "name": name,
                "hand_count": len(state.hands[s]),
                "total": sum(state.scores[s]),
                "round_scores": list(state.scores[s]),
                "kind": seat_kind(state, s),
                "bot": player_of(state, s),
                "account": state.accounts[s] if state.accounts else None,
                "account_bot": bool(state.account_bots and state.account_bots[s]),
            }
            for s, name in enumerate(state.names)
        ],
        "you": None if seat is None else {"seat": seat, "hand": card_names(state.hands[seat]),
                                          "can_abort": by == PLAYER and may_abort(state, seat)},
        "legal_actions": legal_actions(state, seat, by),
        "last_round": None if state.last_round is None else round_result_dict(state.last_round),
        "clock": None if state.turn_seconds is None else {
            "turn_seconds": state.turn_seconds,
            "deadline": instant(state.turn_deadline),
        },
        "rematch": {"asked": list(state.rematch_asked), "game_id": state.rematch_game},
    }
    if state.finished:
        out["winners"] = list(winners(state))
        out["finish_reason"] = state.finish_reason
        out["seed"] = state.seed
        out["seed_salt"] = state.seed_salt
        out["table_nonce"] = state.table_nonce
    return out
