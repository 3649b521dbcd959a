"""The pure Three-Thirteen engine: cards, rules, solver, game state. No I/O."""
