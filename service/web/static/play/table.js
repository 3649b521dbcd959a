// The table: the other players seated around it (left, across, right, in turn order from
// the reader, who sits at the bottom with the hand), each with their name, who plays the
// seat, their card count, their total and their last move; the stock and the discard
// pile in the middle (click them to draw), and the melds on the table.
//
// Rendering only: the page passes in what it knows beyond the view (`moves`: each
// seat's last move from the stream; `counts`: card counts moved on by those moves).

import { backElement, cardElement, cardName } from "./cards.js";

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A player's name as the page shows it ("greedy (bot)", "seat 2 (open)"). */
export function playerName(view, seat) {
  const p = view.players[seat];
  if (p.open) return `seat ${seat} (open)`;
  return p.kind === "bot" ? `${p.name || p.bot} (bot)` : p.name;
}

/**
 * The seats around the table as the reader sees them: turn order starts at the seat after
 * the reader's (a spectator sees every seat, from seat 0), the first third up the left
 * side, the middle across the top, the last third down the right side.
 */
export function seatsAround(view) {
  const n = view.players.length;
  const me = view.you ? view.you.seat : null;
  const others = me === null
    ? view.players.map((p) => p.seat)
    : Array.from({ length: n - 1 }, (_, i) => (me + 1 + i) % n);
  const side = others.length >= 3 ? Math.floor(others.length / 3) : 0;
  return {
    left: others.slice(0, side),
    top: others.slice(side, others.length - side),
    right: others.slice(others.length - side),
  };
}

/** Who plays a seat, in a few words ("bot", "resigned: greedy plays"). */
export function seatKind(p) {
  if (p.open) return "open seat";
  // a bot seat is named after its bot ("strong 2"): "bot" is enough then
  if (p.kind === "bot") return !p.name || p.name.startsWith(p.bot) ? "bot" : `${p.bot} bot`;
  if (p.kind === "away" || p.kind === "resigned") return `${p.kind}: ${p.bot} plays`;
  return "";
}

/** What a move event did, as a line of text and cards ("discarded 7♥"). */
function moveLine(view, move) {
  const line = el("p", "", "move");
  const e = move.event;
  const card = (c) => cardElement(c, { wildRank: view.round.wild_rank });
  if (e.type === "draw" && e.source === "stock") line.append("drew from the stock");
  else if (e.type === "draw") line.append("took ", e.card ? card(e.card) : "the pile's top", " from the pile");
  else if (e.type === "discard") line.append("discarded ", card(e.card));
  else if (e.type === "went_out") line.append("went out, discarding ", card(e.discard));
  else if (e.type === "turn_timed_out") line.append(`ran out of time: ${e.played_by} plays the turn`);
  else return null;
  const p = view.players[e.seat];
  if (e.by === "service" && p && p.kind !== "bot" && e.type !== "turn_timed_out") line.append(` (${p.bot || "stand-in"})`);
  if (move.fresh) line.classList.add("fresh");
  line.dataset.type = e.type;
  return line;
}

function seatBox(view, seat, { counts, moves, inviteUrl, onCopy, profileLink }) {
  const p = view.players[seat];
  const box = el("article", "", "seat");
  box.dataset.seat = seat;
  box.dataset.kind = p.open ? "open" : p.kind;
  if (seat === view.round.current_seat && view.status === "in_progress" && !view.open_seats.length) {
    box.classList.add("current");
  }
  const head = el("h3", "", "seat-name");
  // an account's seat (or a reference bot's) links to its profile: its ratings
  const handle = p.account || (p.kind === "bot" ? p.bot : null);
  const name = el(handle && profileLink ? "a" : "span", p.open ? `Seat ${seat}` : p.name || p.bot, "name");
  if (name.tagName === "A") name.href = profileLink(handle);
  head.append(name);
  const kind = seatKind(p);
  if (kind) head.append(" ", el("span", kind, "kind"));
  box.append(head);
  if (p.open) {
    const url = inviteUrl(seat);
    const link = el("a", `Invite link for seat ${seat}`, "invite");
    link.href = url;
    link.dataset.seat = seat;
    const copy = el("button", "Copy", "copy");
    copy.type = "button";
    copy.setAttribute("aria-label", `Copy the invite link for seat ${seat}`);
    copy.addEventListener("click", () => onCopy(url));
    box.append(el("p", "A friend opens this to take the seat:", "invite-note"), link, " ", copy);
    return box;
  }
  const count = counts ? counts[seat] : p.hand_count;
  const cards = el("p", "", "hand-count");
  const backs = el("span", "", "backs");
  for (let i = 0; i < Math.min(count, 14); i += 1) backs.append(backElement());
  backs.setAttribute("aria-hidden", "true");
  cards.append(backs, el("span", String(count), "count"), count === 1 ? " card" : " cards");
  box.append(cards, el("p", `total ${p.total}`, "total"));
  const move = moves[seat] ? moveLine(view, moves[seat]) : null;
  if (move) box.append(move);
  return box;
}

/** The seats around the table (not the reader's: their hand is below the table). */
export function renderSeats(view, options) {
  const around = seatsAround(view);
  for (const side of ["left", "top", "right"]) {
    $(`seats-${side}`).replaceChildren(...around[side].map((seat) => seatBox(view, seat, options)));
  }
}

/** The stock and the discard pile; each is a button while drawing from it is legal. */
export function renderPile(view, onAct) {
  const r = view.round;
  const draws = new Map(view.legal_actions.filter((a) => a.type === "draw").map((a) => [a.source, a]));
  const stock = el("div", "", "stack");
  const stockCard = backElement(draws.has("stock")
    ? { onClick: () => onAct(draws.get("stock")), label: "Draw from the stock" }
    : { label: `the stock, ${r.stock_count} cards` });
  stockCard.id = "stock";
  stock.append(stockCard, el("span", `stock ${r.stock_count}`, "stack-label"));
  const pile = el("div", "", "stack");
  if (r.discard_top) {
    const take = draws.get("discard");
    const top = cardElement(r.discard_top, {
      wildRank: r.wild_rank,
      onClick: take ? () => onAct(take) : null,
      label: take ? `Take ${cardName(r.discard_top)} from the pile` : `the pile's top, ${cardName(r.discard_top)}`,
    });
    top.id = "pile-top";
    pile.append(top);
  } else {
    const empty = el("span", "empty", "card empty");
    empty.id = "pile-top";
    pile.append(empty);
  }
  pile.append(el("span", `pile ${r.discard_count ?? ""}`.trim(), "stack-label"));
  for (const [node, legal] of [[stock, draws.has("stock")], [pile, draws.has("discard")]]) {
    node.classList.toggle("drawable", legal);
  }
  $("pile").replaceChildren(stock, pile);
}

/** Put `card` on top of the discard pile as an opponent's discard lands (the view that
 * follows redraws the pile with what it says). */
export function setPileTop(card, wildRank) {
  const old = $("pile-top");
  if (!old || !card) return;
  const top = cardElement(card, { wildRank, label: `the pile's top, ${cardName(card)}` });
  top.id = "pile-top";
  old.replaceWith(top);
}

/** The melds laid on the table during final turns (lay-off rules). */
export function renderTableMelds(view) {
  const box = $("table-melds");
  box.replaceChildren();
  if (!view.round.table.length) return;
  box.append(el("h3", "On the table"));
  for (const meld of view.round.table) {
    const line = el("p", "", "table-meld");
    const cards = el("span", "", "cards");
    for (const c of [...meld.cards, ...meld.layoffs.flatMap((l) => l.cards)]) {
      cards.append(cardElement(c, { wildRank: view.round.wild_rank }));
    }
    line.append(`${playerName(view, meld.seat)}: `, cards);
    box.append(line);
  }
}
