"""Each feature of /play in a real headless Chromium: the card faces, the hand (a click
discards, going out its own button), the seats around the table and their moves, a round's
result, invite links, the final table's chart, the status line after a bot's last move,
the wild cards' wording, the form's bot list. What is laid out differently on a phone
(390 x 844) and a laptop (1280 x 800) runs on both (the cards, the hand, the seats, the
chart); a feature that only behaves runs on one of them, the phone and the laptop taking
turns. Every test also checks that the page never scrolls sideways, that the console
stays clean and that no request fails.

Games are fixed by their seed where a test needs particular cards: seed 61 is the README's
curl game (ann: 5H 8H QH; she goes out with three 8s after taking bob's 8D); seed 7 with
`bga` deals ann QS 3H JK (a wild 3 and a joker)."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from service.bots import GreedyBot
from tests.conftest import PATIENCE
from tests.web.conftest import SIZES, Page
from tests.web.player import (
    act_as,
    create_from_form,
    create_game,
    dismiss_round_end,
    open_seat,
    play_turn,
    view_as,
    wait_for_turn,
)

ANN_BOB = [{"name": "ann"}, {"name": "bob"}]
#: The one window of a test whose feature looks the same at both sizes.
PHONE, LAPTOP = SIZES["390px"], SIZES["1280px"]

#: Records, with their times, the cards that fly across the table and the seats' fresh
#: last-move lines (and the animation the stylesheet gives them).
RECORD_MOTION = """
window.__motion = {flights: [], moves: []};
new MutationObserver((changes) => {
  for (const c of changes) for (const n of c.addedNodes) {
    if (!(n instanceof Element)) continue;
    if (n.classList.contains('flying')) window.__motion.flights.push(performance.now());
    for (const m of n.querySelectorAll('.move.fresh'))
      window.__motion.moves.push(getComputedStyle(m).animationName);
  }
}).observe(document.body, {childList: true, subtree: true});
"""


def readme_moves_to_going_out(base: str, game_id: str, tokens: list[str]) -> None:
    """The README's game up to ann's going out (seed 61): the round's last turn is bob's."""
    ann, bob = tokens
    act_as(base, game_id, ann, {"type": "draw", "source": "stock"})
    act_as(base, game_id, ann, {"type": "discard", "card": "5H"})
    act_as(base, game_id, bob, {"type": "draw", "source": "stock"})
    act_as(base, game_id, bob, {"type": "discard", "card": "8D"})
    act_as(base, game_id, ann, {"type": "draw", "source": "discard"})
    act_as(base, game_id, ann, {"type": "go_out", "discard": "QH"})


def bobs_final_turn(base: str, game_id: str, bob: str) -> dict[str, Any]:
    act_as(base, game_id, bob, {"type": "draw", "source": "stock"})
    return act_as(base, game_id, bob, {"type": "discard", "card": "KS"})


def play_out_over_the_api(base: str, game_id: str, tokens: list[str]) -> None:
    """Both seats played by the greedy bot's choices, over the API, to the end."""
    for _ in range(400):
        moved = False
        for token in tokens:
            view = view_as(base, game_id, token)
            if view["status"] == "finished":
                return
            if view["legal_actions"]:
                act_as(base, game_id, token, GreedyBot().choose(view))
                moved = True
        if not moved:
            time.sleep(0.05)
    raise AssertionError("the game did not end")


def rect(page: Page, selector: str) -> dict[str, float]:
    return page.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                   "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};", selector)


def done(page: Page) -> None:
    page.assert_fits()
    page.assert_clean()


# --- 1. card faces ----------------------------------------------------------------------

def test_cards_are_svg_faces_with_the_wild_cards_marked(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    page = browser(*size)
    game = create_game(live_server, ANN_BOB, {"preset": "bga", "hand_sizes": [3]}, seed="7")
    open_seat(page, live_server, game["game_id"], 0, game["seats"][0]["token"])
    cards = page.js("""return [...document.querySelectorAll('#hand .card, #pile-top')].map(c => {
        const face = c.querySelector(':scope > svg');
        return {card: c.dataset.card, label: c.getAttribute('aria-label'), wild: c.classList.contains('wild'),
                viewBox: face && face.getAttribute('viewBox'), badge: c.querySelector('.wild-badge') !== null,
                text: face && face.textContent, width: c.getBoundingClientRect().width,
                fills: [...c.querySelectorAll('path')].map(p => p.getAttribute('fill'))};
    });""")
    hand = {c["card"]: c for c in cards}
    assert list(hand) == ["7S", "QS", "3H", "JK"]  # the pile's top, then ann's hand
    assert [c["label"] for c in cards] == [
        "the pile's top, 7 of spades", "queen of spades", "3 of hearts, wild", "joker, wild"]
    for c in cards:
        # an SVG drawn by the page, scaled to the card's size (crisp at any size)
        assert c["viewBox"] == "0 0 100 140" and c["width"] > 30, c
        assert c["wild"] == c["badge"] == (c["card"] in ("3H", "JK")), c
    assert "#c62828" in hand["3H"]["fills"] and "#1d1d1d" in hand["QS"]["fills"]  # red and black
    assert "JOKER" in hand["JK"]["text"] and hand["QS"]["text"].count("Q") == 3  # corners and the court letter
    assert page.js("return document.querySelector('#stock svg.back') !== null")
    assert page.js("return document.images.length") == 0  # no image file: every card is drawn
    assert "wild: 3s and jokers" in page.text("#summary")
    done(page)


# --- 2. the hand --------------------------------------------------------------------------

def test_a_card_is_discarded_by_clicking_it_and_going_out_is_its_own_button(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    ann = browser(*size)
    game = create_game(live_server, ANN_BOB, {"hand_sizes": [3]}, seed="61")
    game_id, tokens = game["game_id"], [s["token"] for s in game["seats"]]
    open_seat(ann, live_server, game_id, 0, tokens[0])
    buttons = "return [...document.querySelectorAll(arguments[0])].filter(b => b.tagName === 'BUTTON').length;"
    assert ann.hand() == ["5H", "8H", "QH"]
    # drawing: the stock and the pile's top are the controls, not the hand
    assert ann.js(buttons, "#hand .card") == 0 and ann.js(buttons, "#stock, #pile-top") == 2
    assert "Draw" in ann.text("#hand-help")
    ann.click("#stock")
    ann.until(lambda: ann.data("version") == "1", what="the draw")
    # discarding: each card of the hand, in the hand's order, is the one control for it
    assert ann.hand() == view_as(live_server, game_id, tokens[0])["you"]["hand"] == ["5H", "8H", "QH", "8C"]
    assert ann.js("return [...document.querySelectorAll('#hand .card')].map(c => c.tagName + ':' + c.getAttribute('aria-label'))") == [
        "BUTTON:Discard 5 of hearts", "BUTTON:Discard 8 of hearts", "BUTTON:Discard queen of hearts",
        "BUTTON:Discard 8 of clubs"]
    assert ann.js("return [...document.querySelectorAll('button')].filter(b => /discard/i.test(b.textContent)).length") == 0
    assert ann.js(buttons, "#stock, #pile-top, #actions button") == 0
    # the hint still ranks each discard
    ann.click("#hint")
    ann.until(lambda: ann.js("return document.querySelectorAll('#hint-box li[data-card]').length") == 4,
              what="the hint")
    ann.click('#hand .card[data-card="5H"]')
    ann.until(lambda: ann.data("version") == "2", what="the discard")
    assert ann.hand() == ["8H", "QH", "8C"]
    assert ann.js("return document.getElementById('pile-top').dataset.card") == "5H"
    act_as(live_server, game_id, tokens[1], {"type": "draw", "source": "stock"})
    act_as(live_server, game_id, tokens[1], {"type": "discard", "card": "8D"})
    ann.until(lambda: ann.data("version") == "4" and ann.data("yourTurn") == "true", what="bob's turn shown")
    ann.click("#pile-top")  # take bob's 8D
    ann.until(lambda: ann.data("version") == "5", what="the pile's card taken")
    go_out = ann.js("return [...document.querySelectorAll('#actions button')].map(b => [b.textContent, JSON.parse(b.dataset.action)])")
    assert go_out == [["Go out, discarding Q♥", {"type": "go_out", "discard": "QH"}]]
    ann.click("#arrange")  # the solver's arrangement: the three 8s, then the queen
    ann.until(lambda: ann.js("return document.querySelectorAll('#hand .meld .card').length") == 3,
              what="the arranged hand")
    assert ann.text("#hand .penalty") == "deadwood 10"
    ann.click("#actions .act-go_out")
    ann.until(lambda: ann.data("version") == "6", what="going out")
    bobs_final_turn(live_server, game_id, tokens[1])
    ann.until(lambda: ann.data("status") == "finished", what="the end")
    assert dismiss_round_end(ann)  # bob is a person: the result waits for ann
    # the end: the cards are laid down, so no empty hand ("deadwood 0") is left behind
    assert ann.js("return document.getElementById('hand-area').hidden") is True
    assert "deadwood 0" not in ann.js("return document.body.innerText")
    assert ann.hand() == []
    assert "ann won" in ann.text("#final")
    done(ann)


# --- 3. the table ---------------------------------------------------------------------------

def test_the_opponents_sit_around_the_table_with_their_counts_and_their_moves_animated(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    page = browser(*size)
    game = create_game(live_server, [{"name": "ann"}, {"bot": "random"}, {"bot": "random"}, {"bot": "random"}],
                       {"hand_sizes": [6, 7]}, seed="48")
    # seed 48's deal leaves no random bot a way out in two rounds of turns (0 of 2,000 simulated
    # games whatever ann discards): the bots' choices still vary with the game's secret salt
    game_id, token = game["game_id"], game["seats"][0]["token"]
    open_seat(page, live_server, game_id, 0, token, "&pace=400")
    assert wait_for_turn(page)
    view = view_as(live_server, game_id, token)
    seats = page.js("return [...document.querySelectorAll('#felt .seat')].map(s => ["
                    "s.parentElement.id, Number(s.dataset.seat), s.querySelector('.name').textContent,"
                    "s.querySelector('.kind').textContent, Number(s.querySelector('.count').textContent),"
                    "s.querySelectorAll('.backs .card').length])")
    # turn order from ann: the next player on her left, the one after across, the last on her right
    assert [s[:4] for s in seats] == [["seats-left", 1, "random", "bot"], ["seats-top", 2, "random 2", "bot"],
                                      ["seats-right", 3, "random 3", "bot"]]
    assert [s[4] for s in seats] == [s[5] for s in seats] == [p["hand_count"] for p in view["players"][1:]]
    left, top, right = (rect(page, f'#felt .seat[data-seat="{n}"]') for n in (1, 2, 3))
    middle, hand = rect(page, "#center"), rect(page, "#hand-area")
    if page.width >= 1000:  # left, across and right of the middle
        assert left["right"] <= middle["left"] and right["left"] >= middle["right"]
        assert top["bottom"] <= middle["top"] and top["left"] > left["right"]
    else:  # a phone: in turn order above the middle
        assert max(left["bottom"], top["bottom"], right["bottom"]) <= middle["top"]
        assert left["top"] <= top["top"] <= right["top"]
    assert middle["bottom"] <= hand["top"]

    def one_turn_watched() -> dict[str, Any]:
        """ann draws and discards (never going out); the three bots play their turns."""
        page.js(RECORD_MOTION)
        version = page.data("version")
        page.click("#stock")
        page.until(lambda: page.data("version") != version, what="ann's draw")
        version = page.data("version")
        page.click("#hand button.card")
        page.until(lambda: page.data("version") != version, what="ann's discard")
        page.until(lambda: page.data("yourTurn") == "true" or page.data("dialog"), PATIENCE,
                   "the three bots' turns")
        assert page.data("dialog") is None, "a bot went out"
        return page.js("return window.__motion")

    motion = one_turn_watched()
    # each bot's draw and discard flew across the table, its last move line flashed
    assert len(motion["flights"]) >= 6, motion
    assert motion["moves"] and set(motion["moves"]) == {"arrive"}, motion
    for seat in (1, 2, 3):
        box = f'#felt .seat[data-seat="{seat}"]'
        assert page.text(f"{box} .move").startswith("discarded"), page.text(box)
    page.assert_fits("while the cards fly")
    # a reader who asks for less motion sees the moves without any of it
    page.reduce_motion()
    assert wait_for_turn(page)
    motion = one_turn_watched()
    assert motion["flights"] == [] and set(motion["moves"]) == {"none"}, motion
    done(page)


# --- 4. a round's end ---------------------------------------------------------------------

def test_a_rounds_result_holds_until_dismissed_while_a_person_plays_on(
    browser: Callable[..., Page], live_server: str,
) -> None:
    ann = browser(*PHONE)
    game = create_game(live_server, ANN_BOB, {"hand_sizes": [3, 4]}, seed="61")
    game_id, tokens = game["game_id"], [s["token"] for s in game["seats"]]
    open_seat(ann, live_server, game_id, 0, tokens[0], "&pace=0&linger=300")
    readme_moves_to_going_out(live_server, game_id, tokens)
    bobs_final_turn(live_server, game_id, tokens[1])
    ann.until(lambda: ann.data("dialog") == "round-end", what="round 1's result")
    dialog = "#round-end"
    assert ann.js("return document.getElementById('round-end').open") is True
    assert ann.js("return document.getElementById('round-end').dataset.auto") == "false"
    assert ann.text("#round-end-title") == "Round 1 ended: ann went out"
    results = ann.js("return [...document.querySelectorAll('#round-end .result')].map(r => ["
                     "[...r.querySelectorAll('.meld')].map(m => [...m.children].map(c => c.dataset.card)),"
                     "[...r.querySelectorAll('.deadwood .card')].map(c => c.dataset.card), r.querySelector('.score').textContent.trim()])")
    assert results == [[[["8H", "8D", "8C"]], [], "0"], [[], ["2S", "4H", "QD"], "+16"]]
    # the next round is dealt, its hand kept out of sight under the result
    assert "Round 2 of 2" in ann.text("#summary")
    assert ann.js("return document.getElementById('hand').getClientRects().length") == 0
    assert ann.js("return document.getElementById('between-note').getClientRects().length") > 0
    version = ann.data("version")
    act_as(live_server, game_id, tokens[1], {"type": "draw", "source": "stock"})  # bob plays on
    time.sleep(1.2)  # four times the linger: a person is at the table, so nothing closes it
    assert ann.data("dialog") == "round-end" and ann.data("version") == version  # bob's draw waits behind it
    ann.assert_fits("under the round's result")
    ann.click("#round-end-close")
    ann.until(lambda: ann.data("dialog") is None and ann.data("version") != version, what="the next round")
    assert sorted(ann.hand()) == sorted(view_as(live_server, game_id, tokens[0])["you"]["hand"])
    assert len(ann.hand()) == 4
    # read again on request
    ann.click("#show-round-end")
    ann.until(lambda: ann.data("dialog") == "round-end", what="the result again")
    assert "Round 1 ended" in ann.text(dialog)
    ann.click("#round-end-close")
    done(ann)


def test_a_rounds_result_closes_by_itself_when_only_bots_wait(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser(*LAPTOP)
    create_from_form(page, f"{live_server}/play?pace=0&linger=1500", "2", ["random"])
    while True:
        page.until(lambda: page.data("dialog") or page.data("yourTurn") == "true",
                   what="a turn or a round's end")
        if page.data("dialog"):
            break
        play_turn(page)
    assert page.js("return document.getElementById('round-end').dataset.auto") == "true"
    # counting down from the link's 1.5 s (2 s, then 1 s), not the default 6 s: the page's
    # own clock, so a busy machine's slow test does not change what is read
    counting = re.fullmatch(r"Next round \((\d) s\)", page.text("#round-end-close"))
    assert counting and int(counting[1]) <= 2, page.text("#round-end-close")
    assert page.js("return document.getElementById('hand').getClientRects().length") == 0
    page.assert_fits("under the round's result")
    page.until(lambda: page.data("dialog") is None, PATIENCE, "the result closing by itself")
    page.until(lambda: page.js("return document.getElementById('hand').getClientRects().length") > 0,
               what="the new round's hand")
    assert len(page.hand()) >= 4
    done(page)


# --- 5. invite links ------------------------------------------------------------------------

def test_an_open_seats_invite_link_opens_its_claim_and_lands_as_that_seat(
    browser: Callable[..., Page], live_server: str,
) -> None:
    ann = browser(*PHONE)
    game_id = create_from_form(ann, f"{live_server}/play?pace=0", "1", [""])
    invite = '#felt .seat[data-seat="1"] a.invite'
    ann.until(lambda: ann.js("return document.querySelector(arguments[0]) !== null", invite), what="the invite link")
    link = ann.js("return document.querySelector(arguments[0]).href", invite)
    assert link == f"{live_server}/play/?game={game_id}&claim=1"
    assert "seat 1 to be claimed" in ann.text("#summary")
    ann.assert_fits("with an open seat")

    friend = browser(*PHONE)
    friend.open(link)
    friend.until(lambda: friend.js("return !document.getElementById('invite').hidden") and
                 friend.text("#invite-players"), what="the claim form")
    assert friend.text("#invite-title") == f"Seat 1 of game {game_id}"
    assert "seat 0: you" in friend.text("#invite-players") and "seat 1: open" in friend.text("#invite-players")
    assert friend.js("return document.getElementById('game').hidden") is True
    friend.assert_fits("on the claim form")
    friend.js("document.getElementById('invite-name').value = 'bob';")
    friend.click("#take-seat")
    friend.until(lambda: friend.data("seat") == "1" and friend.data("live") == "true", what="bob's seat")
    assert friend.data("viewSeat") == "1" and len(friend.hand()) == 3
    assert "claim" not in friend.js("return location.search")  # a reload resumes the seat
    assert friend.js("return document.getElementById('invite').hidden") is True
    ann.until(lambda: ann.text('#felt .seat[data-seat="1"] .name') == "bob", what="bob at ann's table")
    assert ann.js("return document.querySelector('a.invite')") is None
    done(ann)
    done(friend)


# --- 6. the final table ------------------------------------------------------------------------

def test_the_final_table_charts_the_running_totals(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    game = create_game(live_server, ANN_BOB, {"hand_sizes": [3, 4, 5]}, seed="61")
    game_id, tokens = game["game_id"], [s["token"] for s in game["seats"]]
    play_out_over_the_api(live_server, game_id, tokens)
    view = view_as(live_server, game_id, tokens[0])
    page = browser(*size)
    open_seat(page, live_server, game_id, 0, tokens[0])
    page.until(lambda: page.text("#final"), what="the final table")
    assert page.data("dialog") is None  # a finished game opened later: no result pops up
    winners = " and ".join(view["players"][s]["name"] for s in view["winners"])
    assert page.text("#final h2") == f"Final table: {winners} won"
    chart = page.js("""const c = document.querySelector('#final svg.chart');
        return {label: c.getAttribute('aria-label'),
                lines: [...c.querySelectorAll('g.player')].map(g => [g.dataset.seat,
                    g.querySelector('polyline').getAttribute('points').split(' ').length,
                    g.querySelector('text.label').textContent]),
                width: c.getBoundingClientRect().width};""")
    running = [[sum(p["round_scores"][:i]) for i in range(4)] for p in view["players"]]
    assert chart["lines"] == [["0", 4, f"ann {running[0][-1]}"], ["1", 4, f"bob {running[1][-1]}"]]
    assert chart["label"] == f"Running totals after 3 rounds: ann {running[0][-1]}, bob {running[1][-1]}"
    assert chart["width"] > 250
    # each line's points climb with the running totals (the plot's y grows downwards)
    ys = page.js("return [...document.querySelectorAll('#final svg.chart polyline')].map(l =>"
                 "l.getAttribute('points').split(' ').map(p => Number(p.split(',')[1])))")
    for line, totals in zip(ys, running, strict=True):
        assert all(a >= b for a, b in itertools.pairwise(line))  # never falls: scores are >= 0
        assert (line[0] == line[-1]) == (totals[-1] == 0)
    if running[0][-1] != running[1][-1]:  # the higher total ends higher up
        assert (ys[0][-1] < ys[1][-1]) == (running[0][-1] > running[1][-1])
    # the scores by round: a short row a round, not a growing row of numbers per player
    assert page.js("return document.getElementById('players')") is None
    table = page.js("return [...document.querySelectorAll('#scores tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
    assert table == [[str(r + 1), *(str(p["round_scores"][r]) for p in view["players"])] for r in range(3)]
    assert page.js("return document.getElementById('hand-area').hidden") is True
    done(page)


def test_a_game_ended_by_resignations_says_so_on_the_final_table(
    browser: Callable[..., Page], live_server: str,
) -> None:
    game = create_game(live_server, ANN_BOB, {"hand_sizes": [3, 4]}, seed="61")
    game_id, tokens = game["game_id"], [s["token"] for s in game["seats"]]
    readme_moves_to_going_out(live_server, game_id, tokens)
    bobs_final_turn(live_server, game_id, tokens[1])
    ann = browser(*LAPTOP)
    open_seat(ann, live_server, game_id, 0, tokens[0], "&pace=0&linger=300")
    act_as(live_server, game_id, tokens[1], {"type": "resign"})  # the last one but ann
    ann.until(lambda: ann.data("status") == "finished", what="the end at once")
    assert ann.data("dialog") is None  # round 2 was not scored: no result to show
    assert ann.text("#final .finish-reason") == \
        "The game ended early: everyone but ann resigned (1 round of 2 scored)."
    assert ann.js("return document.querySelectorAll('#final svg.chart polyline').length") == 2
    assert "bob resigned" in ann.text("#final .totals")
    assert ann.text("#status") == "The game is over: ann won."
    done(ann)


# --- 7. the fixes -------------------------------------------------------------------------------

def test_the_status_line_says_the_game_is_over_when_a_bot_made_the_last_move(
    browser: Callable[..., Page], live_server: str,
) -> None:
    """ann never moves: the clock hands her turns to the stand-in (then her seat, away),
    so every move, the last one too, is the service's."""
    game = create_game(live_server, [{"name": "ann"}, {"bot": "greedy"}], {"hand_sizes": [3]},
                       turn_seconds=1)
    game_id, token = game["game_id"], game["seats"][0]["token"]
    page = browser(*PHONE)
    open_seat(page, live_server, game_id, 0, token, "&pace=0&linger=300")
    page.until(lambda: page.data("status") == "finished", what="the game played out by the service")
    events = requests.get(f"{live_server}/v1/games/{game_id}/events?after=0", timeout=5).json()["events"]
    last_move = [e for e in events if e["type"] in ("draw", "discard")][-1]
    assert last_move["by"] == "service"
    page.until(lambda: page.data("dialog") is None, PATIENCE, "the result closing by itself")
    status = page.text("#status")
    assert status.startswith("The game is over:") and "Waiting" not in status, status
    assert page.text("#turn") == "The game is over."
    done(page)


def test_the_wild_cards_are_named_without_jokers_when_the_rules_deal_none(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser(*LAPTOP)
    game = create_game(live_server, ANN_BOB, {"hand_sizes": [5]})
    page.open(f"{live_server}/play/?game={game['game_id']}&watch=1&pace=0")
    page.until(lambda: page.data("live") == "true", what="the spectator's view")
    assert page.text("#summary .wild-text") == "wild: 5s"
    assert "joker" not in page.text("#summary").lower()
    done(page)


@pytest.mark.parametrize("width", [360, 390, 1280])
def test_the_forms_bot_list_shows_short_names_and_the_description_beside_it(
    browser: Callable[..., Page], live_server: str, width: int,
) -> None:
    bots = requests.get(f"{live_server}/v1/bots", timeout=5).json()["bots"]
    page = browser(width, 800)
    page.open(f"{live_server}/play/")
    page.until(lambda: page.js("return document.querySelectorAll('#bot-rows select').length") == 1,
               what="the form")
    row = "#bot-rows .bot-row"
    assert page.js(f"return [...document.querySelector('{row} select').options].map(o => o.text)") == \
        [b["name"] for b in bots]
    assert page.text(f"{row} .about") == bots[0]["description"]
    page.js(f"const s = document.querySelector('{row} select'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'));", bots[-1]["name"])
    assert page.text(f"{row} .about") == bots[-1]["description"]
    page.click("#add-bot")
    page.click("#add-human")
    assert "invite link" in page.text("#bot-rows .bot-row:last-child .about")
    page.assert_fits("on the form")
    done(page)


def test_nothing_scrolls_sideways_at_360_px_with_eight_players_and_a_long_name(
    browser: Callable[..., Page], live_server: str,
) -> None:
    name = "Annabelle-Marguerite-de-la-Tour-du-Pin-X"  # 40 characters, no space to wrap at
    game = create_game(live_server, [{"name": name}] + [{"bot": "random"}] * 7, {"hand_sizes": [3, 4]})
    page = browser(360, 740)
    open_seat(page, live_server, game["game_id"], 0, game["seats"][0]["token"], "&pace=0&linger=60000")
    page.assert_fits("at the table")
    shown: set[str] = set()
    while True:
        page.until(lambda: page.data("dialog") or page.data("yourTurn") == "true"
                   or page.data("status") == "finished", PATIENCE, "a turn")
        if page.data("dialog"):
            page.assert_fits("under a round's result")
            shown.add("dialog")
            dismiss_round_end(page)
            continue
        if page.data("status") == "finished":
            break
        if "hint" not in shown and page.js("return document.querySelector('#hand button.card') !== null"):
            page.click("#arrange")
            page.click("#hint")
            page.until(lambda: page.text("#hint-box"), what="the hint")
            page.assert_fits("with the hint and the arranged hand")
            shown.add("hint")
        play_turn(page)
    assert shown == {"dialog", "hint"}
    assert page.js("return document.querySelectorAll('#final svg.chart polyline').length") == 8
    page.js("document.getElementById('scores').open = true;")
    page.assert_fits("on the final table, the scores by round open")
    # the eight players' scores and the long name, every one on the screen: no box of
    # their own scrolling sideways
    for part in ("#final", "#scores"):
        page.assert_inside(part, "on the final table, the scores by round open")
    assert all(page.shown("#scores tbody td, #scores tfoot td"))
    done(page)
