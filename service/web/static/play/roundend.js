// A round's end as a dialog: every player's melds, lay-offs, deadwood and score, and the
// totals so far. It holds until dismissed, so the result is read before the next hand is
// seen (the page keeps the hand hidden and the stream's next moves waiting meanwhile);
// when every other seat is played by the service nobody is kept waiting by the reader,
// so it closes by itself after `linger` ms, counting down on its button.

import { cardRow } from "./cards.js";
import { SEAT_COLORS } from "./chart.js";
import { playerName } from "./table.js";

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Why the round ended, in words. */
export function roundEndReason(view, last) {
  if (last.reason === "went_out") return `${playerName(view, last.went_out)} went out`;
  if (last.reason === "turn_limit") {
    return `nobody went out in ${view.rules.turn_limit} turns each (the turn limit)`;
  }
  return "the stock ran out";
}

/** Whether every seat but the reader's is played by the service (bots, and the stand-in
 * of a resigned or away player): then nobody waits for the reader to read the result. */
export function othersAreBots(view) {
  const me = view.you ? view.you.seat : null;
  return view.players.every((p) => p.seat === me || (!p.open && p.kind !== "human"));
}

function results(view) {
  const last = view.last_round;
  const list = el("ol", "", "results");
  for (const r of last.results) {
    const item = el("li", "", "result");
    item.dataset.seat = r.seat;
    const head = el("p", "", "result-head");
    const swatch = el("span", "", "swatch");
    swatch.style.background = SEAT_COLORS[r.seat % SEAT_COLORS.length];
    head.append(swatch, el("strong", playerName(view, r.seat)),
      el("span", r.score ? ` +${r.score}` : " 0", "score"),
      el("span", ` · total ${view.players[r.seat].total}`, "total"));
    if (r.seat === last.went_out) head.append(el("span", "went out", "badge"));
    item.append(head);
    const cards = el("div", "", "result-cards");
    const wild = { wildRank: last.wild_rank };
    for (const meld of r.melds) cards.append(Object.assign(cardRow(meld, wild), { className: "cards meld" }));
    for (const l of r.layoffs) {
      const off = cardRow(l.cards, wild);
      off.className = "cards layoff";
      off.title = "laid off";
      cards.append(off);
    }
    if (r.deadwood.length) {
      const dead = cardRow(r.deadwood, wild);
      dead.className = "cards deadwood";
      cards.append(dead);
    }
    item.append(cards);
    const words = [];
    if (r.melds.length) words.push(`${r.melds.length} meld${r.melds.length > 1 ? "s" : ""}`);
    if (r.layoffs.length) words.push(`${r.layoffs.flatMap((l) => l.cards).length} laid off`);
    words.push(r.deadwood.length ? `deadwood ${r.deadwood.length} card${r.deadwood.length > 1 ? "s" : ""}: ${r.score}` : "no deadwood");
    item.append(el("p", words.join(" · "), "result-words"));
    list.append(item);
  }
  return list;
}

export class RoundEnd {
  /** `linger`: ms before the dialog closes itself when the others are all bots. */
  constructor({ linger }) {
    this.dialog = $("round-end");
    this.linger = linger;
    this.timer = null;
    this.waiting = [];
    $("round-end-close").addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => this.closed());
  }

  get isOpen() {
    return this.dialog.open;
  }

  /** Show `view.last_round`; `auto`: close by itself after `linger` ms. */
  show(view, auto) {
    const last = view.last_round;
    const finished = view.status === "finished";
    $("round-end-title").textContent = `Round ${last.number} ended: ${roundEndReason(view, last)}`;
    $("round-end-body").replaceChildren(results(view));
    const button = $("round-end-close");
    const label = finished ? "See the final table" : "Next round";
    button.textContent = label;
    clearInterval(this.timer);
    this.timer = null;
    if (auto) {
      const end = Date.now() + this.linger;
      const tick = () => {
        const left = end - Date.now();
        if (left <= 0) { this.dialog.close(); return; }
        button.textContent = `${label} (${Math.ceil(left / 1000)} s)`;
      };
      tick();
      this.timer = setInterval(tick, Math.min(250, Math.max(20, this.linger / 4)));
    }
    this.dialog.dataset.auto = String(Boolean(auto));
    this.dialog.dataset.round = last.number;
    document.body.dataset.dialog = "round-end";
    $("game").classList.add("between");
    if (!this.dialog.open) this.dialog.showModal();
    button.focus();
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  closed() {
    clearInterval(this.timer);
    this.timer = null;
    delete document.body.dataset.dialog;
    $("game").classList.remove("between");
    for (const resume of this.waiting.splice(0)) resume();
  }

  /** Resolves once the dialog is closed (at once if it is not open). */
  wait() {
    return this.isOpen ? new Promise((resume) => this.waiting.push(resume)) : Promise.resolve();
  }
}
