"""Engine errors: each says what *kind* of wrong, so one HTTP handler can map them.

::

    EngineError                      every error the engine raises
    ├── InvalidInputError(ValueError)    the input does not parse or is out of range
    │   ├── InvalidCardError             bad card notation ("7X")                        invalid_card
    │   ├── InvalidRulesError            unknown option or out-of-range value            invalid_rules
    │   └── InvalidActionError           an action body of the wrong shape               invalid_action
    ├── SolverBudgetExceeded             a valid hand too complex to solve in the budget  solve_too_complex
    ├── NotYourTurnError                 a well-formed action by a seat not on turn      not_your_turn
    └── IllegalActionError               well-formed, on turn, but not allowed now       illegal_action
        ├── SeatResignedError            the seat resigned: its player acts no more      seat_resigned
        ├── SeatAwayError                the seat is away: its player sends back first   seat_away
        └── TurnTimedOutError            this turn timed out: the service finishes it    turn_timed_out

Every class has a stable machine-readable ``code``. The engine knows no HTTP: the HTTP
layer gives each of the four kinds below the root its status (``ENGINE_STATUS`` in
``service/api/problems.py``), and every class below a kind is answered with the kind's.
"""

from __future__ import annotations

__all__ = [
    "EngineError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "InvalidInputError",
    "InvalidRulesError",
    "NotYourTurnError",
    "SeatAwayError",
    "SeatResignedError",
    "SolverBudgetExceeded",
    "TurnTimedOutError",
]


class EngineError(Exception):
    """Base of every engine error. ``code`` is stable and machine-readable."""

    code = "engine_error"

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidInputError(EngineError, ValueError):
    code = "invalid_input"


class InvalidCardError(InvalidInputError):
    code = "invalid_card"


class InvalidRulesError(InvalidInputError):
    code = "invalid_rules"


class InvalidActionError(InvalidInputError):
    code = "invalid_action"


class SolverBudgetExceeded(EngineError):
    """The solver would need more search steps than its budget (``service.solver``).

    Only inputs larger than any game position reach it (``POST /v1/solve`` accepts
    hands of up to 30 cards); the budget is counted in steps, so the same input is
    refused every time, on every machine.
    """

    code = "solve_too_complex"


class NotYourTurnError(EngineError):
    code = "not_your_turn"


class IllegalActionError(EngineError):
    code = "illegal_action"


class SeatResignedError(IllegalActionError):
    """The seat's player resigned: the service plays the seat to the end, and its token
    can no longer act for it."""

    code = "seat_resigned"


class SeatAwayError(IllegalActionError):
    """The seat is away (its turns timed out twice in a row): the service plays its turns
    until its player sends ``{"type": "back"}``."""

    code = "seat_away"


class TurnTimedOutError(IllegalActionError):
    """The seat's turn timed out: the stand-in plays the rest of that turn, so a late move
    of the player cannot interleave with the stand-in's (the record stays one story)."""

    code = "turn_timed_out"
