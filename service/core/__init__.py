"""The game's vocabulary, shared by the engine and the solver: cards, rules, melds, errors,
how an instant is written (the engine writes a turn's deadline) and the JSON shapes of a
view and an action body (which the engine builds and the client reads).

Why a package of its own: the solver needs cards, rules and the meld model, and the
engine needs the solver; with these modules below both, neither imports the other
back (``tests/contract/test_package_graph.py`` checks the whole package graph). Like the
engine it is pure: no I/O, no process-wide mutable state.

Import the modules themselves (``from service.core.cards import parse_card``); this
package re-exports nothing, so each name has one home.
"""
