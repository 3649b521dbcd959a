"""``Memo`` keeps what it is given until it is full, then starts over."""

from __future__ import annotations

from service.engine.memo import Memo


def test_a_memo_returns_what_it_was_given_and_nothing_else() -> None:
    memo: Memo[str, int] = Memo(3)
    memo.put("a", 1)
    assert memo.get("a") == 1 and memo.get("b") is None


def test_a_full_memo_forgets_everything_before_taking_the_next_entry() -> None:
    memo: Memo[int, int] = Memo(2)
    memo.put(1, 1)
    memo.put(2, 2)
    memo.put(3, 3)
    assert (memo.get(1), memo.get(2), memo.get(3)) == (None, None, 3)
