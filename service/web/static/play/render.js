// The view (what GET /v1/games/{id} returns to this bearer) turned into the page.
// Pure rendering: every function reads a view and writes elements, nothing else.

import { cardElement, cardLabel, cardRow } from "./cards.js";

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A player's name as the page shows it ("greedy (bot)", "open seat"). */
export function playerName(view, seat) {
  const p = view.players[seat];
  if (p.open) return `seat ${seat} (open)`;
  return p.kind === "bot" ? `${p.name || p.bot} (bot)` : p.name;
}

export function renderSummary(view, deadline) {
  const box = $("summary");
  box.replaceChildren();
  const r = view.round;
  const me = view.you ? view.you.seat : null;
  const line = el("p");
  line.append(el("strong", `Round ${r.number} of ${r.rounds}`),
    ` · ${r.hand_size} cards · wild: ${r.wild_rank === "T" ? "10" : r.wild_rank}s and jokers`);
  box.append(line);
  const turn = el("p", "", "turn");
  if (view.status === "finished") turn.textContent = "The game is over.";
  else if (view.open_seats.length) turn.textContent = `Waiting for seats ${view.open_seats.join(", ")} to be claimed.`;
  else if (r.current_seat === me) {
    turn.textContent = r.phase.endsWith("draw") ? "Your turn: draw a card." : "Your turn: discard (or go out).";
    turn.classList.add("yours");
  } else turn.textContent = `${playerName(view, r.current_seat)} to play.`;
  if (r.phase && r.phase.startsWith("final")) turn.textContent += " Final turns: someone went out.";
  box.append(turn);
  if (view.clock) {
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

export function renderPlayers(view) {
  const body = $("players").tBodies[0];
  body.replaceChildren();
  const me = view.you ? view.you.seat : null;
  for (const p of view.players) {
    const row = el("tr");
    row.dataset.seat = p.seat;
    if (p.seat === view.round.current_seat) row.classList.add("current");
    if (p.seat === me) row.classList.add("me");
    const name = el("td", playerName(view, p.seat));
    if (p.kind === "away" || p.kind === "resigned") name.append(el("small", ` ${p.kind}, ${p.bot} plays`));
    row.append(name, el("td", String(p.hand_count), "count"),
      el("td", p.round_scores.join(" ") || "–"), el("td", String(p.total), "total"));
    body.append(row);
  }
}

export function renderPile(view) {
  const box = $("pile");
  box.replaceChildren();
  const r = view.round;
  box.append(el("span", `Stock: ${r.stock_count} cards`, "stock"), " · Discard pile: ");
  if (r.discard_top) {
    const top = cardElement(r.discard_top, { wildRank: r.wild_rank });
    top.id = "discard-top";
    box.append(top);
  } else box.append(el("span", "empty"));
}

export function renderTable(view) {
  const box = $("table-melds");
  box.replaceChildren();
  if (!view.round.table.length) return;
  box.append(el("h3", "On the table"));
  for (const meld of view.round.table) {
    const line = el("p");
    const cards = [...meld.cards, ...meld.layoffs.flatMap((l) => l.cards)];
    line.append(`${playerName(view, meld.seat)}: `, cardRow(cards, { wildRank: view.round.wild_rank }));
    box.append(line);
  }
}

/** Your hand: sorted as dealt, or grouped as `arrangement` (the solver's melds) says. */
export function renderHand(view, arrangement, onDiscard) {
  const area = $("hand-area");
  area.hidden = !view.you;
  if (!view.you) return;
  for (const b of area.querySelectorAll(":scope > button")) b.hidden = view.status === "finished";
  const box = $("hand");
  box.replaceChildren();
  const wild = view.round.wild_rank;
  const discardable = new Map();
  for (const a of view.legal_actions) if (a.type === "discard") discardable.set(a.card, a);
  const card = (c) => cardElement(c, {
    wildRank: wild, onClick: discardable.has(c) ? () => onDiscard(discardable.get(c)) : null,
    title: discardable.has(c) ? `discard ${cardLabel(c)}` : "",
  });
  if (arrangement) {
    for (const meld of arrangement.melds) {
      const group = el("span", "", "meld");
      group.append(...meld.map(card));
      box.append(group);
    }
    const rest = el("span", "", "deadwood");
    rest.append(...arrangement.deadwood.map(card));
    box.append(rest, el("span", ` deadwood ${arrangement.penalty}`, "penalty"));
  } else {
    box.append(...view.you.hand.map(card));
  }
}

function actionLabel(view, a) {
  if (a.type === "draw") {
    return a.source === "stock" ? "Draw from the stock" : `Take ${cardLabel(view.round.discard_top)} from the pile`;
  }
  if (a.type === "discard") return `Discard ${cardLabel(a.card)}`;
  return `Go out, discarding ${cardLabel(a.discard)}`;
}

/** One button per legal action, exactly as the view lists them. */
export function renderActions(view, onAct) {
  const box = $("actions");
  box.replaceChildren();
  for (const a of view.legal_actions) {
    const b = el("button", actionLabel(view, a), `act act-${a.type}`);
    b.type = "button";
    b.dataset.action = JSON.stringify(a);
    b.addEventListener("click", () => onAct(a));
    box.append(b);
  }
}

/** The last round's end: every player's melds, lay-offs, deadwood and score. */
export function renderRoundEnd(view) {
  const box = $("round-end");
  const last = view.last_round;
  box.hidden = !last;
  box.replaceChildren();
  if (!last) return;
  const why = last.reason === "went_out" ? `${playerName(view, last.went_out)} went out` : "the stock ran out";
  box.append(el("h2", `Round ${last.number} ended: ${why}`));
  const wild = last.wild_rank;
  for (const r of last.results) {
    const line = el("div", "", "result");
    line.dataset.seat = r.seat;
    line.append(el("strong", `${playerName(view, r.seat)}: ${r.score}`), " ");
    for (const meld of r.melds) line.append(cardRow(meld, { wildRank: wild }), " ");
    for (const l of r.layoffs) line.append("laid off ", cardRow(l.cards, { wildRank: wild }), " ");
    if (r.deadwood.length) line.append("deadwood ", cardRow(r.deadwood, { wildRank: wild }));
    box.append(line);
  }
}

/** The final table: totals, winners, the seed revealed, and (where the server keeps
 * records) the score sheet and how to verify it. */
export function renderFinal(view, sheet, recordUrl) {
  const box = $("final");
  box.hidden = view.status !== "finished";
  box.replaceChildren();
  if (box.hidden) return;
  const names = view.winners.map((s) => playerName(view, s)).join(" and ");
  box.append(el("h2", `Final table: ${names} won`));
  const table = el("table", "", "totals");
  const ranked = [...view.players].sort((a, b) => a.total - b.total);
  for (const p of ranked) {
    const row = el("tr");
    row.append(el("td", playerName(view, p.seat)), el("td", String(p.total)));
    if (view.winners.includes(p.seat)) row.classList.add("winner");
    table.append(row);
  }
  box.append(table);
  box.append(el("p", `Seed ${view.seed}, salt ${view.seed_salt}: sha256(salt:seed) is the commitment ${view.seed_commitment} shown from the start.`, "seed"));
  if (sheet) {
    box.append(el("h3", "Score sheet"), el("pre", sheet, "sheet"));
    const how = el("p", "Verify it: save ");
    const link = el("a", "the record");
    link.href = recordUrl;
    link.download = `${view.game_id}.json`;
    how.append(link, " and run ", el("code", `python -m service.verify ${view.game_id}.json`));
    box.append(how);
  }
}

/** One line of the move log, from an event. */
export function describeEvent(view, e) {
  const who = (seat) => (view ? playerName(view, seat) : `seat ${seat}`);
  switch (e.type) {
    case "round_started": return `Round ${e.round} dealt: ${e.hand_size} cards, pile shows ${e.discard_top ? cardLabel(e.discard_top) : "nothing"}`;
    case "draw": return `${who(e.seat)} drew ${e.card ? cardLabel(e.card) : "a card"} from the ${e.source === "stock" ? "stock" : "pile"}`;
    case "discard": return `${who(e.seat)} discarded ${cardLabel(e.card)}`;
    case "went_out": return `${who(e.seat)} went out, discarding ${cardLabel(e.discard)}`;
    case "laid_down": {
      const cards = e.melds.flat().length + e.layoffs.flatMap((l) => l.cards).length;
      return cards ? `${who(e.seat)} laid down ${cards} card(s)` : `${who(e.seat)} had nothing to lay down`;
    }
    case "reshuffled": return `The pile was reshuffled into the stock (${e.stock_count} cards)`;
    case "round_ended": return `Round ${e.number} ended`;
    case "game_finished": return `Game over: ${e.winners.map(who).join(" and ")} won`;
    case "seat_claimed": return `${e.name} took seat ${e.seat}`;
    case "seat_resigned": return `${who(e.seat)} resigned; ${e.played_by} plays on`;
    case "turn_timed_out": return `${who(e.seat)} ran out of time; ${e.played_by} played the turn`;
    case "seat_back": return `${who(e.seat)} is back`;
    case "rematch_asked": return `${who(e.seat)} asks for a rematch`;
    case "rematch_started": return `The rematch started: ${e.game_id}`;
    default: return e.type;
  }
}
