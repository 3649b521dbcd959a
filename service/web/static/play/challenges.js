// Challenges of the signed-in account: those made to it (accept, decline), those it made
// (cancel), and the form that challenges a reference bot or a handle with a preset and a
// turn clock. A challenge to a bot is accepted at once, so its game opens at once; a game
// that starts later (the others accepted) is offered by the account's stream (account.js).

import { deadlineElement } from "./mygames.js";

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

const folded = (handle) => handle.toLowerCase();

/** A turn clock in words: "30 s a turn", "5 min a turn", "1 day a turn", "no clock". */
export function clockText(seconds) {
  if (seconds === null) return "no clock";
  for (const [unit, size] of [["day", 86400], ["h", 3600], ["min", 60]]) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${unit === "day" && n > 1 ? "s" : ""} a turn`;
    }
  }
  return `${seconds} s a turn`;
}

/** "bob", "bob and carl", "bob, carl and dee". */
function names(list) {
  return list.length > 1 ? `${list.slice(0, -1).join(", ")} and ${list.at(-1)}` : list[0] || "";
}

export class ChallengesPanel {
  /** `page`: `api`, `session`, `say`, `explain`, `open(gameId)` (opens a game to play it),
   * `profileLink(handle)`. */
  constructor(page) {
    this.page = page;
  }

  /** Fill and wire the challenge form: the reference bots by name, or a handle. */
  setup(presets, bots) {
    const opponent = $("challenge-opponent");
    for (const bot of bots) opponent.add(new Option(`${bot.name} (a reference bot)`, bot.name));
    opponent.add(new Option("a player, by handle", ""));
    for (const name of Object.keys(presets)) $("challenge-preset").add(new Option(name, name));
    opponent.addEventListener("change", () => this.showHandle());
    this.showHandle();
    $("challenge").addEventListener("submit", (e) => { e.preventDefault(); this.send(); });
  }

  showHandle() {
    const byHandle = $("challenge-opponent").value === "";
    $("challenge-handle-label").hidden = !byHandle;
    $("challenge-handle").required = byHandle;
    $("challenge-handle").disabled = !byHandle;
  }

  async send() {
    const me = this.page.session.account();
    if (!me) return;
    const to = $("challenge-opponent").value || $("challenge-handle").value.trim();
    const clock = $("challenge-clock").value;
    const body = { to: [to], rules: { preset: $("challenge-preset").value },
      turn_seconds: clock === "" ? null : Number(clock) };
    const button = $("send-challenge");
    button.disabled = true;
    try {
      const made = await this.page.api.challenge(me.key, body);
      if (made.status === "accepted" && made.game_id) {
        this.page.say(`${to} accepted: opening the game…`);
        this.page.open(made.game_id);
        return;
      }
      $("challenge-handle").value = "";
      this.page.say(`Challenge sent to ${to}: the game starts when they accept.`);
      await this.refresh();
    } catch (e) {
      this.page.say(`No challenge: ${this.page.explain(e)}`, true);
    } finally {
      button.disabled = false;
    }
  }

  async refresh() {
    const me = this.page.session.account();
    if (!me) return;
    try {
      const { challenges } = await this.page.api.challenges(me.key);
      if (this.page.session.account()?.key !== me.key) return;
      const mine = (c) => folded(c.challenger) === folded(me.handle);
      this.render($("incoming"), challenges.filter((c) => !mine(c)), false);
      this.render($("outgoing"), challenges.filter(mine), true);
    } catch (e) { this.page.say(`Your challenges did not load: ${this.page.explain(e)}`, true); }
  }

  render(list, challenges, made) {
    list.replaceChildren();
    if (!challenges.length) list.append(el("li", made ? "None waiting." : "None right now."));
    for (const c of challenges) {
      const item = el("li", "", "entry");
      item.dataset.challenge = c.challenge_id;
      const who = el("strong");
      if (made) who.append(`To ${names(c.to)}`);
      else {
        // the challenger's handle links to their profile: how strong are they?
        const challenger = el("a", c.challenger);
        challenger.href = this.page.profileLink(c.challenger);
        who.append(challenger, " challenges you");
        if (c.to.length > 1) who.append(` (with ${names(c.to.filter((h) => folded(h) !== folded(this.page.session.account().handle)))})`);
      }
      item.append(who, ` · ${c.rules.preset} · ${clockText(c.turn_seconds)}`);
      if (c.accepted.length) item.append(` · accepted: ${names(c.accepted)}`);
      item.append(" · ", deadlineElement(c.expires, "answer "), " ");
      const buttons = el("span", "", "buttons");
      if (made) {
        buttons.append(this.button("Cancel", `Cancel the challenge to ${names(c.to)}`, "cancel",
          () => this.answer(c, "cancel")));
      } else {
        buttons.append(
          this.button("Accept", `Accept ${c.challenger}'s challenge`, "accept", () => this.answer(c, "accept")),
          this.button("Decline", `Decline ${c.challenger}'s challenge`, "decline", () => this.answer(c, "decline")));
      }
      item.append(buttons);
      list.append(item);
    }
  }

  button(text, label, kind, onClick) {
    const b = el("button", text, kind === "accept" ? "act" : "");
    b.type = "button";
    b.dataset.answer = kind;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", onClick);
    return b;
  }

  /** Accept (opening the game once everyone has), decline or cancel. */
  async answer(challenge, kind) {
    const me = this.page.session.account();
    if (!me) return;
    const item = document.querySelector(`[data-challenge="${CSS.escape(challenge.challenge_id)}"]`);
    for (const b of item?.querySelectorAll("button") ?? []) b.disabled = true;
    try {
      const answered = await this.page.api[kind](me.key, challenge.challenge_id);
      if (kind === "accept" && answered.game_id) {
        this.page.say("Accepted: opening the game…");
        this.page.open(answered.game_id);
        return;
      }
      this.page.say(kind === "accept" ? "Accepted: the game starts when everyone has."
        : kind === "decline" ? `Declined ${challenge.challenger}'s challenge.` : "Challenge canceled.");
    } catch (e) {
      this.page.say(`Not done: ${this.page.explain(e)}`, true);
    }
    await this.refresh();
  }

  clear() {
    $("incoming").replaceChildren();
    $("outgoing").replaceChildren();
  }
}
