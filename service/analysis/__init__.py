"""Judging decisions after the game (docs/analysis.md). :mod:`.judge`: one decision, from
what its seat could see, over sampled worlds played out to the round's end;
:mod:`.final_turn`: a final turn's discard, whose outcome nothing hidden can change,
judged exactly; :mod:`.luck`: what the card a draw gave its seat was worth against those
it could have been; :mod:`.game`: every decision of a finished game's record, and each seat
summed up."""
