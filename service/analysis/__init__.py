"""Judging decisions after the game. :mod:`.final_turn`: a final turn's discard, whose
outcome nothing hidden can change, judged exactly."""
