// "Your mistakes" (`?mistakes`): the signed-in account's own decisions that cost points in
// its analysed games (GET /v1/me/mistakes), each a puzzle. A puzzle shows the position as
// the account's seat saw it (the round, the wild rank, the pile's top and the stock, the
// hand), the player picks a move (a draw, a card to discard, or going out with it), the
// answer is checked by the service (POST /v1/me/mistakes/{game_id}/{version}) and the
// verdict shown: whether it is the best move, the best move, and the points it saves
// against the move made in the game. Above the list, the account's automatic analysis of
// its rated games (PATCH /v1/me `analyse_rated`) and what is left of its day's quota.

import { Problem } from "./api.js";
import { backElement, cardElement, cardLabel, cardName, cardRow } from "./cards.js";
import { el } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** A move as an instruction: "discard 7♥", "draw from the stock", "go out, discarding Q♠". */
export function moveWords(action) {
  switch (action.type) {
    case "draw": return action.source === "stock" ? "draw from the stock" : "take the pile's top card";
    case "discard": return `discard ${cardLabel(action.card)}`;
    case "go_out": return `go out, discarding ${cardLabel(action.discard)}`;
    default: return action.type;
  }
}

const points = (n) => `${n.toFixed(1)} point${n.toFixed(1) === "1.0" ? "" : "s"}`;

/** What the service said of an answer, in words: whether it is the best move, what it
 * saves against the move made in the game, and the best move when it is not. */
export function verdictWords(result) {
  const played = moveWords(result.action);
  const lines = [];
  if (result.correct) lines.push(`Right: ${moveWords(result.answer)} is the best move.`);
  else lines.push(`Not the best move: ${moveWords(result.best)} is.`);
  if (result.saves === null) {
    lines.push("The analysis did not compare your answer with the others: it cannot say what it saves.");
  } else if (result.saves > 0) {
    lines.push(`Your answer saves ${points(result.saves)} against what you played (${played}).`);
  } else {
    lines.push(`Your answer saves nothing against what you played (${played}).`);
  }
  if (!result.correct) lines.push(`The best move saves ${points(result.regret)} against ${played}.`);
  return lines;
}

export class MistakesView {
  /** `page`: `api`, `session`, `say`, `explain`, `linkTo(gameId, watch)`. */
  constructor(page) {
    this.page = page;
    this.cursor = null;
    this.puzzle = null;
    this.answering = false;
  }

  async show() {
    $("mistakes").hidden = false;
    const me = this.page.session.account();
    $("mistakes-signed-out").hidden = Boolean(me);
    $("mistakes-signed-in").hidden = !me;
    if (!me) {
      this.page.say("Sign in to see your mistakes.");
      return;
    }
    $("analyse-rated").onchange = () => this.setAuto($("analyse-rated").checked);
    $("mistakes-more").onclick = () => this.more();
    $("puzzle-next").onclick = () => this.next();
    $("puzzle-retry").onclick = () => this.open(this.puzzle);
    $("puzzle-go-out").onchange = () => this.renderHand();
    $("mistakes-list").replaceChildren();
    this.cursor = null;
    await Promise.all([this.settings(), this.more()]);
  }

  /** The automatic analysis switch and the quota, from GET /v1/me. */
  async settings() {
    const me = this.page.session.account();
    try {
      this.renderSettings(await this.page.api.me(me.key));
    } catch (e) { this.page.say(`Your account did not load: ${this.page.explain(e)}`, true); }
  }

  renderSettings(account) {
    $("analyse-rated").checked = account.analyse_rated;
    const { per_day: perDay, used } = account.auto_analyses;
    $("auto-quota").textContent = account.analyse_rated
      ? `${Math.max(0, perDay - used)} of ${perDay} left in the last 24 hours.`
      : `Up to ${perDay} a day; other games: ask for their analysis on their final table.`;
  }

  async setAuto(on) {
    const me = this.page.session.account();
    $("analyse-rated").disabled = true;
    try {
      this.renderSettings(await this.page.api.updateMe(me.key, { analyse_rated: on }));
      this.page.say(on ? "Your rated games will be analysed when they finish." : "Your rated games are no longer analysed by themselves.");
    } catch (e) {
      $("analyse-rated").checked = !on;
      this.page.say(`Not changed: ${this.page.explain(e)}`, true);
    } finally {
      $("analyse-rated").disabled = false;
    }
  }

  /** The next page of the list (the first when there is no cursor yet). */
  async more() {
    const me = this.page.session.account();
    $("mistakes-more").disabled = true;
    try {
      const page = await this.page.api.myMistakes(me.key, this.cursor);
      this.cursor = page.next_cursor;
      this.renderList(page.mistakes);
      $("mistakes-more").hidden = this.cursor === null;
      const count = $("mistakes-list").children.length;
      this.page.say(count ? "Pick a position and find the better move." : "No mistakes yet.");
      $("mistakes-empty").hidden = count > 0;
    } catch (e) {
      if (e instanceof Problem && e.status === 401) this.page.say("Your key was refused: sign in again.", true);
      else this.page.say(`Your mistakes did not load: ${this.page.explain(e)}`, true);
    } finally {
      $("mistakes-more").disabled = false;
    }
  }

  renderList(mistakes) {
    const list = $("mistakes-list");
    for (const m of mistakes) {
      const item = el("li", "", "entry");
      item.dataset.game = m.game_id;
      item.dataset.version = m.version;
      item.puzzle = m;
      const button = el("button", `Round ${m.position.round}, ${m.position.phase === "discard" ? "your discard" : "your draw"}`);
      button.type = "button";
      button.addEventListener("click", () => this.open(m));
      const when = new Date(m.ended).toLocaleDateString([], { dateStyle: "medium" });
      const word = m.judgement ? `${m.judgement}, ` : "";
      item.append(button, ` ${m.preset || "custom"} game of ${when} · ${word}${points(m.regret)} lost`);
      list.append(item);
    }
  }

  /** The puzzle after the one shown, from the list (the next page's first if need be). */
  async next() {
    const items = [...$("mistakes-list").children];
    const at = items.findIndex((li) => li.puzzle === this.puzzle);
    if (at + 1 >= items.length && this.cursor !== null) await this.more();
    const after = $("mistakes-list").children[at + 1];
    if (after) this.open(after.puzzle);
    else this.page.say("That was the last of your mistakes.");
  }

  /** Show `m`'s position and wait for a move. */
  open(m) {
    this.puzzle = m;
    this.answering = false;
    const p = m.position;
    for (const li of $("mistakes-list").children) li.classList.toggle("yours", li.puzzle === m);
    $("puzzle").hidden = false;
    $("puzzle").dataset.game = m.game_id;
    $("puzzle").dataset.version = m.version;
    $("puzzle-title").textContent = `Round ${p.round}: ${p.hand_size} cards, ${p.wild_rank === "T" ? "10" : p.wild_rank}s wild`;
    const drawing = p.phase === "draw" || p.phase === "final_draw";
    $("puzzle-ask").textContent = drawing
      ? "Your turn begins: where do you draw from? Pick the stock or the pile's top card."
      : "You have drawn: which card do you discard? Pick one of your cards.";
    $("puzzle-verdict").replaceChildren();
    delete $("puzzle-verdict").dataset.correct;
    $("puzzle-after").hidden = true;
    const outs = !drawing && "go_out" in m.values;
    $("puzzle-go-out-label").hidden = !outs;
    $("puzzle-go-out").checked = false;
    this.renderPile();
    this.renderHand();
    $("puzzle-title").focus();
    this.page.say("Find the better move.");
  }

  renderPile() {
    const p = this.puzzle.position;
    const drawing = p.phase === "draw" || p.phase === "final_draw";
    const stock = el("div", "", `stack${drawing ? " drawable" : ""}`);
    stock.append(backElement(drawing
      ? { onClick: () => this.answer({ type: "draw", source: "stock" }), label: "Draw from the stock" }
      : { label: `the stock, ${p.stock_count} cards` }), el("span", `stock ${p.stock_count}`, "stack-label"));
    const pile = el("div", "", `stack${drawing && p.discard_top ? " drawable" : ""}`);
    if (p.discard_top) {
      pile.append(cardElement(p.discard_top, {
        wildRank: p.wild_rank,
        onClick: drawing ? () => this.answer({ type: "draw", source: "discard" }) : null,
        label: drawing ? `Take ${cardName(p.discard_top)} from the pile` : `the pile's top, ${cardName(p.discard_top)}`,
      }));
    } else pile.append(el("span", "empty", "card empty"));
    pile.append(el("span", "pile", "stack-label"));
    $("puzzle-pile").replaceChildren(stock, pile);
  }

  /** The hand: in a discard, each card a button that discards it (or goes out with it,
   * when "go out" is ticked); in a draw, the cards only. */
  renderHand() {
    const p = this.puzzle.position;
    const drawing = p.phase === "draw" || p.phase === "final_draw";
    if (drawing) {
      $("puzzle-hand").replaceChildren(cardRow(p.hand, { wildRank: p.wild_rank }));
      return;
    }
    const out = $("puzzle-go-out").checked;
    const row = el("div", "", "cards");
    for (const card of p.hand) {
      row.append(cardElement(card, {
        wildRank: p.wild_rank,
        label: out ? `Go out, discarding ${cardName(card)}` : `Discard ${cardName(card)}`,
        onClick: () => this.answer(out ? { type: "go_out", discard: card } : { type: "discard", card }),
      }));
    }
    $("puzzle-hand").replaceChildren(row);
  }

  async answer(move) {
    if (this.answering) return;
    this.answering = true;
    const m = this.puzzle;
    const me = this.page.session.account();
    for (const b of $("puzzle").querySelectorAll("button.card")) b.disabled = true;
    try {
      const result = await this.page.api.answerMistake(me.key, m.game_id, m.version, move);
      if (this.puzzle !== m) return;
      const box = $("puzzle-verdict");
      box.dataset.correct = String(result.correct);
      box.replaceChildren(...verdictWords(result).map((line) => el("p", line)));
      box.firstChild.className = result.correct ? "verdict right" : "verdict wrong";
      $("puzzle-after").hidden = false;
      $("puzzle-game").href = this.page.linkTo(m.game_id, false);
      this.page.say(result.correct ? "Right." : "Not the best move.");
    } catch (e) {
      this.answering = false;
      for (const b of $("puzzle").querySelectorAll("button.card")) b.disabled = false;
      this.page.say(`Not checked: ${this.page.explain(e)}`, true);
    }
  }
}
