"""Rule presets and options (docs/rules.md), resolved into one immutable value.

A rules *spec* is what a client sends: ``{"preset": "classic", …overrides}``.
:func:`resolve_rules` validates it strictly (unknown option or a value out of
range ⇒ :class:`InvalidRulesError` naming the option and what is allowed) and
returns a :class:`Rules`. ``Rules.to_dict()`` is the resolved form shown to
clients and stored with a game; ``resolve_rules(rules.to_dict())`` gives the
same value back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .cards import JOKER, RANKS, rank_of
from .errors import InvalidRulesError

__all__ = [
    "ACE_MODES",
    "OPTION_NAMES",
    "PRESETS",
    "Rules",
    "preset_rules",
    "resolve_rules",
    "wild_rank_for_hand_size",
]

ACE_MODES = ("low", "high", "both", "wrap")
STOCK_RULES = ("reshuffle", "end_round")
TIE_BREAKS = ("zero_rounds", "shared")
MAX_DECKS = 8
MAX_PENALTY = 1000
#: The default of ``turn_limit``: well above the turns a round takes (a 4-player round of
#: the reference bots takes under 10 turns each), so only a stalled round ever meets it.
DEFAULT_TURN_LIMIT = 30
#: At most this many turns each per round: with 20 rounds of 8 players a game is at most
#: 16,000 turns (32,000 draws and discards), so its event log is bounded whatever a
#: client asks (docs/capacity.md).
MAX_TURN_LIMIT = 100

_FACE_VALUES = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}
_BGA_VALUES = {r: (15 if r == "A" else i + 1) for i, r in enumerate(RANKS)}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of the rules (docs/rules.md), resolved. Immutable and hashable: the
    bots' analysis cache keys on it (``service.bots.budget``; the solver keeps no cache)."""

    preset: str
    min_players: int
    max_players: int
    decks: int | str  # an int, or "auto"
    min_decks: int  # the preset's minimum for decks "auto"
    jokers: int
    aces: str
    card_values: tuple[int, ...]  # 13 values, index rank-1
    wild_penalty: int | None
    joker_penalty: int
    ace_penalty: int | None
    min_naturals_per_meld: int
    max_wilds_per_meld: int | None
    lay_off: bool
    hand_sizes: tuple[int, ...]
    final_round_multiplier: int
    contracts: tuple[tuple[int, int] | None, ...] | None  # per round (sets, runs)
    stock_exhausted: str
    tie_break: str
    #: turns per player in one round, after which the round ends as the hands stand
    #: (``None``: no limit, refused where the service plays a seat or a clock runs)
    turn_limit: int | None = DEFAULT_TURN_LIMIT

    # -- derived -----------------------------------------------------------------

    @property
    def rounds(self) -> int:
        return len(self.hand_sizes)

    def wild_rank(self, round_index: int) -> int:
        """Wild rank (1..13) of round ``round_index`` (0-based)."""
        return wild_rank_for_hand_size(self.hand_sizes[round_index])

    def decks_for(self, players: int) -> int:
        """Number of decks in the shoe for ``players`` (resolves ``"auto"``)."""
        if isinstance(self.decks, int):
            return self.decks
        need = players * max(self.hand_sizes) + 21
        decks = self.min_decks
        while 52 * decks < need:
            decks += 1
        return decks

    def contract(self, round_index: int) -> tuple[int, int] | None:
        if self.contracts is None:
            return None
        return self.contracts[round_index]

    def natural_value(self, rank: int) -> int:
        if rank == 1 and self.ace_penalty is not None:
            return self.ace_penalty
        return self.card_values[rank - 1]

    def penalty_table(self, wild_rank: int | None) -> tuple[int, ...]:
        """Deadwood penalty of each card integer 0..52 in a round with ``wild_rank``."""
        table = []
        for card in range(52):
            rank = rank_of(card)
            if rank == wild_rank and self.wild_penalty is not None:
                table.append(self.wild_penalty)
            else:
                table.append(self.natural_value(rank))
        table.append(self.joker_penalty)
        assert len(table) == JOKER + 1
        return tuple(table)

    def to_dict(self) -> dict[str, Any]:
        """The resolved options as JSON-compatible data (the ``rules`` of every view)."""
        return {
            "preset": self.preset,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "decks": self.decks,
            "jokers": self.jokers,
            "aces": self.aces,
            "card_values": {r: v for r, v in zip(RANKS, self.card_values, strict=True)},
            "wild_penalty": self.wild_penalty,
            "joker_penalty": self.joker_penalty,
            "ace_penalty": self.ace_penalty,
            "min_naturals_per_meld": self.min_naturals_per_meld,
            "max_wilds_per_meld": self.max_wilds_per_meld,
            "lay_off": self.lay_off,
            "hand_sizes": list(self.hand_sizes),
            "final_round_multiplier": self.final_round_multiplier,
            "contracts": (
                None
                if self.contracts is None
                else [None if c is None else {"sets": c[0], "runs": c[1]} for c in self.contracts]
            ),
            "stock_exhausted": self.stock_exhausted,
            "tie_break": self.tie_break,
            "turn_limit": self.turn_limit,
        }

    @property
    def hard_to_solve(self) -> bool:
        """Whether the solver's work on a hand is several times a classic game's: hands
        past 13 cards, more than two jokers, or lay-offs onto table melds (what a bot's
        decision and an analysis' step are charged by: ``make bench-decisions``,
        docs/analysis.md)."""
        return max(self.hand_sizes) > 13 or self.jokers > 2 or self.lay_off


def wild_rank_for_hand_size(hand_size: int) -> int:
    """The rank equal to the hand size is wild; a 14-card round has aces wild."""
    return 1 if hand_size == 14 else hand_size


def _preset(name: str, **kw: Any) -> Rules:
    base = Rules(
        preset=name,
        min_players=2,
        max_players=8,
        decks="auto",
        min_decks=2,
        jokers=0,
        aces="low",
        card_values=tuple(_FACE_VALUES[r] for r in RANKS),
        wild_penalty=None,
        joker_penalty=25,
        ace_penalty=None,
        min_naturals_per_meld=0,
        max_wilds_per_meld=None,
        lay_off=False,
        hand_sizes=tuple(range(3, 14)),
        final_round_multiplier=1,
        contracts=None,
        stock_exhausted="reshuffle",
        tie_break="shared",
    )
    return replace(base, **kw)


PRESETS: dict[str, Rules] = {
    "classic": _preset("classic", wild_penalty=15, joker_penalty=25, tie_break="zero_rounds"),
    "bga": _preset(
        "bga",
        max_players=6,
        jokers=4,
        aces="both",
        card_values=tuple(_BGA_VALUES[r] for r in RANKS),
        wild_penalty=50,
        joker_penalty=50,
    ),
    "family": _preset("family", min_decks=1, min_naturals_per_meld=1),
}

#: The option names a client may set (``preset`` chooses the base).
OPTION_NAMES = tuple(f.name for f in fields(Rules) if f.name not in ("preset", "min_decks"))


def preset_rules(name: str) -> Rules:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InvalidRulesError(
            f"unknown preset {name!r}: use one of {', '.join(PRESETS)}", option="preset"
        ) from None


# -- validation ------------------------------------------------------------------


def _int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidRulesError(
            f"option {name!r} must be an integer from {lo} to {hi}, not {value!r}", option=name
        )
    return value


def _opt_int(name: str, value: Any, lo: int, hi: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidRulesError(
            f"option {name!r} must be null or an integer from {lo} to {hi}, not {value!r}",
            option=name,
        )
    return value


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidRulesError(
            f"option {name!r} must be one of {', '.join(allowed)}, not {value!r}", option=name
        )
    return value


def _card_values(value: Any, base: tuple[int, ...]) -> tuple[int, ...]:
    if not isinstance(value, Mapping):
        raise InvalidRulesError(
            "option 'card_values' must be an object from rank (A 2 … 9 T J Q K) to its "
            'penalty, e.g. {"A": 15}',
            option="card_values",
        )
    values = list(base)
    for key, v in value.items():
        rank_key = "T" if key == "10" else key
        if not isinstance(rank_key, str) or rank_key not in RANKS:
            raise InvalidRulesError(
                f"option 'card_values' has an unknown rank {key!r}: use A 2 … 9 T J Q K",
                option="card_values",
            )
        values[RANKS.index(rank_key)] = _int(f"card_values.{rank_key}", v, 0, MAX_PENALTY)
    return tuple(values)


def _hand_sizes(value: Any) -> tuple[int, ...]:
    if (
        not isinstance(value, list | tuple)
        or not 1 <= len(value) <= 20
        or any(isinstance(v, bool) or not isinstance(v, int) or not 3 <= v <= 14 for v in value)
    ):
        raise InvalidRulesError(
            "option 'hand_sizes' must be a list of 1 to 20 hand sizes, each from 3 to 14 "
            f"(one per round), not {value!r}",
            option="hand_sizes",
        )
    return tuple(value)


def _contracts(
    value: Any, hand_sizes: tuple[int, ...]
) -> tuple[tuple[int, int] | None, ...] | None:
    """Per-round contracts, each one that the round's hand can meet: going out melds
    ``hand_size`` cards (one of the ``hand_size + 1`` is discarded) and a meld has 3 or
    more, so ``3 × (sets + runs) > hand_size`` could never be met and the game would
    never end."""
    if value is None:
        return None
    rounds = len(hand_sizes)
    if not isinstance(value, list | tuple) or len(value) != rounds:
        raise InvalidRulesError(
            f"option 'contracts' must be null or a list with one entry per round ({rounds}), "
            'each null or {"sets": n, "runs": m}',
            option="contracts",
        )
    out: list[tuple[int, int] | None] = []
    for number, (entry, hand_size) in enumerate(zip(value, hand_sizes, strict=True), 1):
        if entry is None:
            out.append(None)
            continue
        if isinstance(entry, Mapping) and set(entry) <= {"sets", "runs"}:
            sets = _int("contracts.sets", entry.get("sets", 0), 0, 5)
            runs = _int("contracts.runs", entry.get("runs", 0), 0, 5)
            if 3 * (sets + runs) > hand_size:
                raise InvalidRulesError(
                    f"the contract of round {number} ({sets} sets, {runs} runs) needs at "
                    f"least {3 * (sets + runs)} cards in melds, but that round's hand has "
                    f"{hand_size}: going out melds every card but the discard",
                    option="contracts", round=number,
                )
            out.append((sets, runs))
            continue
        raise InvalidRulesError(
            f'each entry of \'contracts\' must be null or {{"sets": n, "runs": m}}, not {entry!r}',
            option="contracts",
        )
    return tuple(out)


def resolve_rules(spec: Mapping[str, Any] | None) -> Rules:
    """Validate ``{"preset": …, …overrides}`` and return the resolved :class:`Rules`."""
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise InvalidRulesError('rules must be an object like {"preset": "classic"}')
    base = preset_rules(spec.get("preset", "classic"))
    unknown = sorted(k for k in spec if k != "preset" and k not in OPTION_NAMES)
    if unknown:
        raise InvalidRulesError(
            f"unknown rule option {unknown[0]!r}; the options are: {', '.join(OPTION_NAMES)}",
            option=unknown[0],
        )
    s = spec
    decks = s.get("decks", base.decks)
    if decks != "auto":
        decks = _int("decks", decks, 1, MAX_DECKS)
    hand_sizes = _hand_sizes(s.get("hand_sizes", list(base.hand_sizes)))
    rules = replace(
        base,
        min_players=_int("min_players", s.get("min_players", base.min_players), 2, 8),
        max_players=_int("max_players", s.get("max_players", base.max_players), 2, 8),
        decks=decks,
        jokers=_int("jokers", s.get("jokers", base.jokers), 0, 8),
        aces=_choice("aces", s.get("aces", base.aces), ACE_MODES),
        card_values=_card_values(s.get("card_values", {}), base.card_values),
        wild_penalty=_opt_int(
            "wild_penalty", s.get("wild_penalty", base.wild_penalty), 0, MAX_PENALTY
        ),
        joker_penalty=_int(
            "joker_penalty", s.get("joker_penalty", base.joker_penalty), 0, MAX_PENALTY
        ),
        ace_penalty=_opt_int("ace_penalty", s.get("ace_penalty", base.ace_penalty), 0, MAX_PENALTY),
        min_naturals_per_meld=_int(
            "min_naturals_per_meld",
            s.get("min_naturals_per_meld", base.min_naturals_per_meld),
            0,
            3,
        ),
        max_wilds_per_meld=_opt_int(
            "max_wilds_per_meld", s.get("max_wilds_per_meld", base.max_wilds_per_meld), 0, 13
        ),
        lay_off=_bool("lay_off", s.get("lay_off", base.lay_off)),
        hand_sizes=hand_sizes,
        final_round_multiplier=_int(
            "final_round_multiplier",
            s.get("final_round_multiplier", base.final_round_multiplier),
            1,
            10,
        ),
        contracts=_contracts(
            s.get("contracts", _contracts_as_spec(base.contracts)), hand_sizes
        ),
        stock_exhausted=_choice(
            "stock_exhausted", s.get("stock_exhausted", base.stock_exhausted), STOCK_RULES
        ),
        tie_break=_choice("tie_break", s.get("tie_break", base.tie_break), TIE_BREAKS),
        turn_limit=_opt_int("turn_limit", s.get("turn_limit", base.turn_limit), 1,
                            MAX_TURN_LIMIT),
    )
    if rules.min_players > rules.max_players:
        raise InvalidRulesError(
            "option 'min_players' must not exceed 'max_players'", option="min_players"
        )
    return rules


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidRulesError(
            f"option {name!r} must be true or false, not {value!r}", option=name
        )
    return value


def _contracts_as_spec(contracts: tuple[tuple[int, int] | None, ...] | None) -> Any:
    if contracts is None:
        return None
    return [None if c is None else {"sets": c[0], "runs": c[1]} for c in contracts]
