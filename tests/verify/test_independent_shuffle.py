"""A second shuffle, written from docs/records.md alone ("The shuffle, precisely"), deals
the engine's cards: the document is precise enough to write a verifier elsewhere.

This module implements the documented construction without importing the engine's
``shoe`` module, and compares its deals with the engine's games for 1,000 seeds.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from service.engine import new_game
from service.engine.rounds import begin_turn, deal_round
from service.engine.serialize import rules_from_json
from service.engine.state import DRAW

TWO_64 = 2**64


class Stream:
    """The documented random stream: SHA-256(seed:label:counter), big-endian 64-bit words."""

    def __init__(self, seed: str, label: str) -> None:
        self.prefix = f"{seed}:{label}:"
        self.counter = 0
        self.words: list[int] = []

    def word(self) -> int:
        if not self.words:
            digest = hashlib.sha256((self.prefix + str(self.counter)).encode("utf-8")).digest()
            self.counter += 1
            self.words = [int.from_bytes(digest[k:k + 8], "big") for k in (24, 16, 8, 0)]
        return self.words.pop()

    def below(self, n: int) -> int:
        while True:
            w = self.word()
            if w < TWO_64 - TWO_64 % n:
                return w % n

    def shuffle(self, items: list[int]) -> list[int]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def documented_deal(seed: str, players: int, decks: int, jokers: int, hand_size: int,
                    r: int) -> tuple[int, list[list[int]], int, list[int]]:
    """The dealer, each seat's hand (sorted), the card turned up and the stock of round r."""
    first = Stream(seed, "first-dealer").below(players)
    dealer = (first + r - 1) % players
    shoe = [c for _ in range(decks) for c in range(52)] + [52] * jokers
    cards = Stream(seed, f"deal:{r}").shuffle(shoe)
    hands: list[list[int]] = [[] for _ in range(players)]
    for i in range(hand_size * players):
        hands[(dealer + 1 + i) % players].append(cards[i])
    n = hand_size * players
    return dealer, [sorted(h) for h in hands], cards[n], cards[n + 1:]


TABLES = [({"preset": "classic"}, 2), ({"preset": "classic"}, 4), ({"preset": "bga"}, 3),
          ({"preset": "family"}, 5), ({"preset": "classic", "jokers": 2}, 6)]


def test_the_documented_shuffle_deals_the_engines_cards_for_1000_seeds() -> None:
    for k in range(1000):
        spec, players = TABLES[k % len(TABLES)]
        rules = rules_from_json(spec)
        seed = f"seed-{k}" if k % 3 else str(k)
        state = new_game(rules, [f"p{s}" for s in range(players)], seed)
        r = 1 + k % rules.rounds  # a different round of each seed, round 1 included
        if r > 1:
            state = deal_round(state, r - 1, None)
        dealer, hands, up, stock = documented_deal(
            seed, players, rules.decks_for(players), rules.jokers, rules.hand_sizes[r - 1], r)
        assert state.dealer == dealer, seed
        assert [list(h) for h in state.hands] == hands, seed
        assert state.discard == (up,), seed
        assert list(state.stock) == stock, seed
        assert state.current_seat == (dealer + 1) % players


def test_the_documented_reshuffle_makes_the_engines_new_stock() -> None:
    rules = rules_from_json({"preset": "classic", "stock_exhausted": "reshuffle"})
    for k in range(50):
        seed = f"re-{k}"
        state = new_game(rules, ["a", "b"], seed)
        pile = tuple(range(k % 7, 40))  # the pile under its top, bottom card first
        empty = replace(state, stock=(), discard=(*pile, 51), reshuffles=k % 2)
        after = begin_turn(empty, 0, DRAW, None)
        label = f"reshuffle:1:{k % 2 + 1}"
        assert list(after.stock) == Stream(seed, label).shuffle(list(pile))
        assert after.discard == (51,)


def test_the_documented_example_word_is_the_first_8_bytes_of_the_digest() -> None:
    digest = hashlib.sha256(b"7:first-dealer:0").digest()
    assert Stream("7", "first-dealer").word() == int.from_bytes(digest[:8], "big")
