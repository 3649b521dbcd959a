"""A record as the score sheet a person reads: round by round, who went out, each player's
melds and deadwood, the running totals, then the winners and how to check the deal.

A pure function of the record's JSON (no engine), so what ``Accept: text/plain`` serves
and what a player reads offline from a saved record are the same text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["score_sheet"]


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _melds(result: Mapping[str, Any]) -> str:
    melds = [f"[{_cards(m)}]" for m in result.get("melds", [])]
    melds += [f"+{_cards(lo['cards'])} on meld {lo['meld'] + 1}"
              for lo in result.get("layoffs", [])]
    return " ".join(melds) if melds else "-"


def _players(record: Mapping[str, Any]) -> list[str]:
    out = []
    for p in record["players"]:
        kind = p["kind"] if p.get("bot") is None else f"bot {p['bot']}"
        if p.get("played_by") and p.get("bot") is None:
            kind += f", played by {p['played_by']}"
        out.append(f"  seat {p['seat']}: {p['name']} ({kind})")
    return out


#: How a round nobody went out of ended (absent: the round in play when the game ended
#: because every other player resigned, or it was aborted: never scored).
_ENDINGS = {"stock_exhausted": "nobody went out: the stock ran out",
            "turn_limit": "nobody went out: every player had the turn limit of turns"}
_UNSCORED = {"resigned": "not scored: the others resigned",
             "aborted": "not scored: the game was aborted"}


def _round(record: Mapping[str, Any], rnd: Mapping[str, Any]) -> list[str]:
    names = [p["name"] for p in record["players"]]
    width = max(len(n) for n in names)
    out_by = rnd.get("went_out")
    ending = (f"{names[out_by]} went out" if out_by is not None
              else _ENDINGS.get(rnd.get("reason") or "")
              or _UNSCORED.get(record.get("finish_reason") or "", "not scored"))
    lines = [f"Round {rnd['number']}: {rnd['hand_size']} cards, {rnd['wild_rank']}s wild, "
             f"dealer {names[rnd['dealer']]}; {ending}"]
    for result, total in zip(rnd.get("results", []), rnd.get("totals", []), strict=True):
        name = names[result["seat"]]
        lines.append(f"  {name:<{width}}  score {result['score']:>3}  total {total:>4}  "
                     f"melds {_melds(result)}  deadwood {_cards(result['deadwood'])}")
    return lines


def _result(record: Mapping[str, Any], names: Sequence[str]) -> str:
    """Who won, and why the game ended when it did not end with its last round."""
    reason = record.get("finish_reason")
    if reason == "aborted":
        return "No result: the game was aborted before every player had played"
    won = " and ".join(names[s] for s in record["winners"])
    why = " (every other player resigned)" if reason == "resigned" else ""
    return f"Winner{'s' if len(record['winners']) > 1 else ''}: {won}{why}"


def score_sheet(record: Mapping[str, Any]) -> str:
    """The text score sheet of a record (``GET /v1/games/{id}/record``, ``text/plain``)."""
    names = [p["name"] for p in record["players"]]
    rules = record["rules"]
    lines = [
        f"Three-Thirteen: game {record['game_id']}",
        f"Rules: {rules['preset']}, {len(rules['hand_sizes'])} rounds, {record['decks']} "
        f"deck(s), {rules['jokers']} joker(s)",
        f"Started {record.get('created_at') or '-'}, finished {record.get('finished_at')}",
        "Players:",
        *_players(record),
        "",
    ]
    for rnd in record["rounds"]:
        lines += [*_round(record, rnd), ""]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, record["totals"], strict=True))
    lines += [f"Final totals: {totals}", _result(record, names), ""]
    lines += [
        f"Seed {record['seed']!r}, salt {record['seed_salt']!r}: sha256(salt:seed) = "
        f"{record['seed_commitment']}",
        f"{record['versions']} actions. Check them: python -m service.verify record.json",
    ]
    return "\n".join(lines) + "\n"
