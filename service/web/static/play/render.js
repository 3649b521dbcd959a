// The view (what GET /v1/games/{id} returns to this bearer) turned into the page: the
// summary, the reader's hand and what they may do with it, the scores by round and the
// final table. Pure rendering: every function reads a view and writes elements. The
// table (seats, stock, pile) is table.js; a round's end is roundend.js.

import { cardElement, cardLabel, cardName } from "./cards.js";
import { SEAT_COLORS, runningTotals, totalsChart } from "./chart.js";
import { keepTableRoles, labelledCell } from "./dom.js";
import { playerName } from "./table.js";

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

const RANK_PLURALS = { A: "aces", T: "10s", J: "jacks", Q: "queens", K: "kings" };

/** "wild: 3s and jokers", or "wild: 3s" when the rules deal no jokers. */
export function wildText(view) {
  const rank = view.round.wild_rank;
  const jokers = view.rules.jokers > 0;
  if (!rank) return jokers ? "wild: jokers" : "no wild cards";
  return `wild: ${RANK_PLURALS[rank] || `${rank}s`}${jokers ? " and jokers" : ""}`;
}

export function renderSummary(view, deadline) {
  const box = $("summary");
  box.replaceChildren();
  const r = view.round;
  const me = view.you ? view.you.seat : null;
  const line = el("p", "", "round-line");
  line.append(el("strong", `Round ${r.number} of ${r.rounds}`), ` · ${r.hand_size} cards · `,
    el("span", wildText(view), "wild-text"));
  const most = view.rules.turn_limit ? view.rules.turn_limit * view.players.length : null;
  if (most && view.status === "in_progress" && r.turns >= most / 2) {
    // a round nobody goes out of ends at the limit's turns for each player: say so
    // once it gets near, rather than a counter from the first turn
    line.append(` · turn ${Math.min(r.turns + 1, most)} of at most ${most}`);
  }
  box.append(line);
  const turn = el("p", "", "turn");
  turn.id = "turn";
  if (view.status === "finished") turn.textContent = "The game is over.";
  else if (view.open_seats.length) {
    const seats = view.open_seats.join(", ");
    turn.textContent = `Waiting for seat${view.open_seats.length > 1 ? "s" : ""} ${seats} to be claimed: send the invite link on the seat.`;
  } else if (r.turn_timed_out) {
    const p = view.players[r.current_seat];
    turn.textContent = `${r.current_seat === me ? "Your" : `${playerName(view, r.current_seat)}'s`} time ran out: ${p.bot || "the stand-in"} plays the turn.`;
  } else if (r.current_seat === me) {
    turn.textContent = r.phase.endsWith("draw") ? "Your turn: draw a card." : "Your turn: discard a card (or go out).";
    turn.classList.add("yours");
  } else turn.textContent = `${playerName(view, r.current_seat)} to play.`;
  if (view.status === "in_progress" && r.phase && r.phase.startsWith("final")) turn.textContent += " Final turns: someone went out.";
  box.append(turn);
  if (view.clock && view.status === "in_progress") {
    const clock = el("p", "", "clock");
    clock.id = "clock";
    clock.dataset.deadline = deadline || "";
    clock.textContent = `Clock: ${view.clock.turn_seconds} s a turn`;
    box.append(clock);
  }
  const who = el("p", me === null ? "You are watching." : `You are seat ${me}.`, "who");
  who.append(" Game ", el("code", view.game_id));
  box.append(who);
}

/** The live countdown of the turn clock, from the view's deadline. */
export function tickClock() {
  const clock = $("clock");
  if (!clock || !clock.dataset.deadline) return;
  const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
  clock.textContent = `Clock: ${left} s left`;
}

/**
 * The reader's hand at the bottom of the table, in the order the view gives it (or as
 * the solver's `arrangement` groups it). In the discard phase each card is the button
 * that discards it: one control per card, nothing else to match it to. Once the game is
 * over the cards are laid down (the round's end and the final table show them), so the
 * hand is not shown at all rather than as an empty arrangement.
 */
export function renderHand(view, arrangement, onAct) {
  const area = $("hand-area");
  area.hidden = !view.you || view.status === "finished";
  if (area.hidden) return;
  const me = view.players[view.you.seat];
  const r = view.round;
  const mine = r.current_seat === view.you.seat && view.status === "in_progress" && !view.open_seats.length;
  area.classList.toggle("current", mine);
  $("me").replaceChildren(el("span", me.name, "name"), el("span", ` · total ${me.total}`, "total"));
  const discards = new Map();
  for (const a of view.legal_actions) if (a.type === "discard") discards.set(a.card, a);
  const draws = view.legal_actions.some((a) => a.type === "draw");
  const help = $("hand-help");
  if (discards.size) help.textContent = "Click a card to discard it.";
  else if (draws) help.textContent = "Draw: click the stock or the pile's top card.";
  else help.textContent = "";
  const card = (c) => cardElement(c, {
    wildRank: r.wild_rank,
    onClick: discards.has(c) ? () => onAct(discards.get(c)) : null,
    label: discards.has(c) ? `Discard ${cardName(c)}` : "",
  });
  const box = $("hand");
  box.replaceChildren();
  box.classList.toggle("discarding", discards.size > 0);
  if (arrangement && view.you.hand.length) {
    for (const meld of arrangement.melds) {
      const group = el("span", "", "meld");
      group.append(...meld.map(card));
      box.append(group);
    }
    const rest = el("span", "", "deadwood");
    rest.append(...arrangement.deadwood.map(card));
    box.append(rest, el("span", `deadwood ${arrangement.penalty}`, "penalty"));
  } else {
    box.append(...view.you.hand.map(card));
  }
}

/** Going out, when legal: its own button per card it may discard (drawing is done on the
 * stock and the pile, discarding on the hand's cards). */
export function renderActions(view, onAct) {
  const box = $("actions");
  box.replaceChildren();
  for (const a of view.legal_actions.filter((x) => x.type === "go_out")) {
    const b = el("button", `Go out, discarding ${cardLabel(a.discard)}`, "act act-go_out");
    b.type = "button";
    b.dataset.action = JSON.stringify(a);
    b.addEventListener("click", () => onAct(a));
    box.append(b);
  }
}

function swatch(seat) {
  const s = el("span", "", "swatch");
  s.style.background = SEAT_COLORS[seat % SEAT_COLORS.length];
  return s;
}

/** The scores by round: a row per round, a column per player, the totals at the foot
 * (it grows downwards, one short row a round). On a phone, where a column per player
 * would not fit, each round is a block of the players' scores, each named (style.css). */
export function renderScores(view) {
  const box = $("scores-table");
  const rounds = Math.max(0, ...view.players.map((p) => p.round_scores.length));
  $("scores").hidden = rounds === 0;
  if (!rounds) { box.replaceChildren(); return; }
  const table = el("table", "", "scores reflow");
  const head = el("tr");
  const first = el("th", "Round");
  first.scope = "col";
  head.append(first);
  for (const p of view.players) {
    const th = el("th");
    th.append(swatch(p.seat), el("span", playerName(view, p.seat), "name"));
    th.scope = "col";
    head.append(th);
  }
  table.append(el("thead"));
  table.tHead.append(head);
  // a player's score, named by the player on a phone, with the seat's colour as the chart's
  const score = (p, text, className = "") => {
    const td = labelledCell(playerName(view, p.seat), text, className);
    td.style.setProperty("--seat", SEAT_COLORS[p.seat % SEAT_COLORS.length]);
    return td;
  };
  const body = el("tbody");
  for (let i = 0; i < rounds; i += 1) {
    const row = el("tr");
    const number = el("th", String(i + 1));
    number.scope = "row";
    number.dataset.label = "Round";
    row.append(number);
    for (const p of view.players) row.append(score(p, i < p.round_scores.length ? String(p.round_scores[i]) : "–"));
    body.append(row);
  }
  const foot = el("tfoot");
  const totals = el("tr");
  const total = el("th", "Total");
  total.scope = "row";
  totals.append(total);
  for (const p of view.players) totals.append(score(p, String(p.total), "total"));
  foot.append(totals);
  table.append(body, foot);
  keepTableRoles(table);
  box.replaceChildren(table);
}

/** The record's score sheet as it is written, a line to an element: on a phone a long line
 * wraps under its own start (style.css) rather than running off the screen. */
function scoreSheet(text) {
  const sheet = el("pre", "", "sheet");
  // each line keeps its newline: the sheet's text, copied or read, is the record's
  sheet.append(...text.split(/(?<=\n)/).map((line) => el("span", line, "line")));
  return sheet;
}

/** The final table: the winners, why the game ended early if it did, the running totals
 * as a chart, the ranking, the seed revealed, and (where the server keeps records) the
 * score sheet and how to verify it. */
export function renderFinal(view, sheet, recordUrl) {
  const box = $("final");
  box.hidden = view.status !== "finished";
  box.replaceChildren();
  if (box.hidden) return;
  const names = view.winners.map((s) => playerName(view, s)).join(" and ");
  const aborted = view.finish_reason === "aborted";
  box.append(el("h2", aborted ? "Final table: no result" : `Final table: ${names} won`));
  const rounds = Math.max(0, ...runningTotals(view.players).map((t) => t.length - 1));
  if (aborted) {
    box.append(el("p", "The game was aborted before every player had played: it has no result.", "finish-reason"));
  }
  if (view.finish_reason === "resigned") {
    const played = `${rounds} round${rounds === 1 ? "" : "s"} of ${view.round.rounds} scored`;
    box.append(el("p", `The game ended early: everyone but ${names} resigned (${played}).`, "finish-reason"));
  }
  if (rounds) {
    const figure = el("figure", "", "chart-box");
    box.append(figure);
    const width = figure.clientWidth - 16; // its padding
    // the lines are named as the seats are on the table (no "(bot)": the space is short)
    const short = (seat) => view.players[seat].name || `seat ${seat}`;
    figure.append(totalsChart(view, short, width),
      el("figcaption", "Running totals after each round (lower is better)."));
  }
  const table = el("table", "", "totals");
  const ranked = [...view.players].sort((a, b) => a.total - b.total);
  for (const p of ranked) {
    const row = el("tr");
    const name = el("td");
    name.append(swatch(p.seat), playerName(view, p.seat));
    if (p.kind === "resigned") name.append(el("small", " resigned", "kind"));
    row.dataset.seat = p.seat;
    row.append(name, el("td", String(p.total), "total"));
    if (view.winners.includes(p.seat)) row.classList.add("winner");
    table.append(row);
  }
  box.append(table);
  box.append(el("p", `Seed ${view.seed}, salt ${view.seed_salt}: sha256(salt:seed) is the commitment ${view.seed_commitment} shown from the start.`, "seed"));
  if (sheet) {
    box.append(el("h3", "Score sheet"), scoreSheet(sheet));
    const how = el("p", "Verify it: save ");
    const link = el("a", "the record");
    link.href = recordUrl;
    link.download = `${view.game_id}.json`;
    how.append(link, " and run ", el("code", `python -m service.verify ${view.game_id}.json`));
    box.append(how);
  }
}

/** One line of the move log, from an event. A move the service made for a human's seat
 * (a resigned, away or timed-out player's) says who made it. */
export function describeEvent(view, e) {
  const who = (seat) => (view ? playerName(view, seat) : `seat ${seat}`);
  const by = (seat) => {
    const p = view && view.players[seat];
    return e.by === "service" && p && p.kind !== "bot" ? ` (played by ${p.bot || "the stand-in"})` : "";
  };
  switch (e.type) {
    case "round_started": return `Round ${e.round} dealt: ${e.hand_size} cards, pile shows ${e.discard_top ? cardLabel(e.discard_top) : "nothing"}`;
    case "draw": return `${who(e.seat)} drew ${e.card ? cardLabel(e.card) : "a card"} from the ${e.source === "stock" ? "stock" : "pile"}${by(e.seat)}`;
    case "discard": return `${who(e.seat)} discarded ${cardLabel(e.card)}${by(e.seat)}`;
    case "went_out": return `${who(e.seat)} went out, discarding ${cardLabel(e.discard)}${by(e.seat)}`;
    case "laid_down": {
      const cards = e.melds.flat().length + e.layoffs.flatMap((l) => l.cards).length;
      return cards ? `${who(e.seat)} laid down ${cards} card(s)` : `${who(e.seat)} had nothing to lay down`;
    }
    case "reshuffled": return `The pile was reshuffled into the stock (${e.stock_count} cards)`;
    case "round_ended": return `Round ${e.number} ended${e.reason === "turn_limit" ? " at the turn limit" : ""}`;
    case "game_finished": return e.reason === "aborted" ? "Game over: aborted, no result"
      : `Game over: ${e.winners.map(who).join(" and ")} won${e.reason === "resigned" ? " (the others resigned)" : ""}`;
    case "game_aborted": return `${who(e.seat)} aborted the game before playing`;
    case "victory_claimed": return `${who(e.seat)} claimed the game: ${who(e.against)} was away and resigns`;
    case "seat_claimed": return `${e.name} took seat ${e.seat}`;
    case "seat_resigned": return `${who(e.seat)} resigned; ${e.played_by} plays on`;
    case "turn_timed_out": return `${who(e.seat)} ran out of time; ${e.played_by} played the turn`;
    case "seat_back": return `${who(e.seat)} is back`;
    case "rematch_asked": return `${who(e.seat)} asks for a rematch`;
    case "rematch_started": return `The rematch started: ${e.game_id}`;
    default: return e.type;
  }
}
