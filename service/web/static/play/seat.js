// What a seat may do besides its turns: resign (a bot plays the seat to the end), come
// back after being marked away, abort before its first turn, claim the game against an
// away opponent, and, once the game is over, ask for the rematch. None of these is a turn
// action (a claim is listed on your turn only), so the buttons follow the seat's `kind`,
// `you.can_abort`, the others' kinds and the view's `rematch` instead.

const $ = (id) => document.getElementById(id);

/** The bearer's own player entry, or null for a spectator. */
const mine = (view) => (view.you ? view.players[view.you.seat] : null);

export class SeatControls {
  /**
   * `page`: `api`, `say(text, isError)`, `explain(error)`, `show(view)`,
   * `openRematch(gameId)`, `linkTo(gameId, watch)`, and `current()`, which returns the
   * page's `{ gameId, token }`.
   */
  constructor(page) {
    this.page = page;
    this.resignTimer = null;
    $("resign").addEventListener("click", () => this.resign());
    $("back").addEventListener("click", () => this.seatAction({ type: "back" }));
    $("abort").addEventListener("click", () => this.seatAction({ type: "abort" }));
    $("rematch").addEventListener("click", () => this.rematch());
  }

  render(view) {
    const me = mine(view);
    const playing = view.status === "in_progress" && me !== null;
    $("resign").hidden = !playing || !(me.kind === "human" || me.kind === "away");
    $("back").hidden = !playing || me.kind !== "away";
    $("abort").hidden = !playing || !view.you.can_abort;
    const claims = $("claims");
    claims.replaceChildren();
    if (playing && me.kind === "human") {
      for (const p of view.players.filter((x) => x.kind === "away" && x.seat !== me.seat)) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = `Claim the game: ${p.name} is away`;
        button.addEventListener("click", () => this.seatAction({ type: "claim_victory", against: p.seat }));
        claims.append(button);
      }
    }
    if ($("resign").hidden) this.disarm();
    const box = $("rematch-box");
    // a deployment without rematches sends no `rematch` field: no button then
    // a player who resigned is not asked: its seat comes back open in the rematch
    box.hidden = view.status !== "finished" || me === null || me.kind === "bot"
      || me.kind === "resigned" || !view.rematch;
    if (box.hidden) return;
    const { asked, game_id: next } = view.rematch;
    $("rematch").hidden = Boolean(next) || asked.includes(me.seat);
    const status = $("rematch-status");
    status.replaceChildren();
    if (next) {
      const link = document.createElement("a");
      link.href = this.page.linkTo(next, false);
      link.textContent = "Play the rematch";
      link.addEventListener("click", (e) => { e.preventDefault(); this.page.openRematch(next); });
      status.append("The rematch is ready: ", link);
    } else if (asked.length) {
      status.textContent = `Asked for a rematch: ${asked.map((s) => view.players[s].name).join(", ")}.`;
    }
  }

  /** Resigning takes two clicks: the first arms the button for five seconds. */
  async resign() {
    const button = $("resign");
    if (!button.dataset.armed) {
      button.dataset.armed = "true";
      button.textContent = "Click again to resign (a bot plays your seat to the end)";
      this.resignTimer = setTimeout(() => this.disarm(), 5000);
      return;
    }
    this.disarm();
    await this.seatAction({ type: "resign" });
  }

  disarm() {
    clearTimeout(this.resignTimer);
    $("resign").textContent = "Resign";
    delete $("resign").dataset.armed;
  }

  /** Resign, back, abort and claims are not turn moves: they are sent without If-Match. */
  async seatAction(action) {
    const { gameId, token } = this.page.current();
    try {
      this.page.show(await this.page.api.seatAction(gameId, token, action));
    } catch (e) { this.page.say(`Not done: ${this.page.explain(e)}`, true); }
  }

  /** Ask for (or accept) the rematch, then wait on the old game until every player who did not resign has. */
  async rematch() {
    const { gameId, token } = this.page.current();
    $("rematch").hidden = true;
    try {
      let view = await this.page.api.rematch(gameId, token);
      this.page.show(view);
      while (!view.rematch.game_id && this.page.current().gameId === gameId) {
        view = await this.page.api.waitView(gameId, token, view.version);
        this.page.show(view);
      }
      if (view.rematch.game_id && this.page.current().gameId === gameId) {
        this.page.openRematch(view.rematch.game_id);
      }
    } catch (e) {
      this.page.say(`No rematch: ${this.page.explain(e)}`, true);
      $("rematch").hidden = false;
    }
  }
}
