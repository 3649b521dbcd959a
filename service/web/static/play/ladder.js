// The bot ladder (`?ladder=<preset>`): the games its members are playing now, each with
// a link that opens it as a spectator, and the members by rating. The service pairs the
// ladder every few seconds, so the page reads it again on a timer while it is shown.

const $ = (id) => document.getElementById(id);

/** Between two reads of the ladder: its games last minutes, a new one appears within
 * the service's own pairing pass (2 s) of a member having room. */
const REFRESH_MS = 5000;

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export class LadderView {
  /** `page`: `api`, `say`, `explain`, `linkTo(gameId, watch)`, `profileLink(handle, preset)`,
   * `ladderLink(preset)`. */
  constructor(page) {
    this.page = page;
    this.shown = 0; // which read is the latest: a slower earlier answer is dropped
  }

  async show(preset) {
    $("ladder").hidden = false;
    const { presets } = await this.page.api.presets();
    const names = Object.keys(presets);
    const select = $("ladder-preset");
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    select.value = names.includes(preset) ? preset : names[0];
    select.addEventListener("change", () => {
      history.replaceState(null, "", this.page.ladderLink(select.value));
      this.refresh();
    });
    await this.refresh();
    // a hidden tab does not need the ladder: the timer reads it only while it is seen
    setInterval(() => { if (!document.hidden) this.refresh(); }, REFRESH_MS);
  }

  async refresh() {
    const preset = $("ladder-preset").value;
    const ticket = ++this.shown;
    let ladder;
    try {
      ladder = await this.page.api.ladder(preset);
    } catch (e) {
      if (ticket === this.shown) this.page.say(`The ladder did not load: ${this.page.explain(e)}`, true);
      return;
    }
    if (ticket !== this.shown) return;
    this.renderGames(ladder, preset);
    this.renderMembers(ladder, preset);
    document.body.dataset.ladder = `${preset}:${ladder.games.length}`;
    const games = ladder.games.length;
    this.page.say(`The ${preset} ladder: ${games} game${games === 1 ? "" : "s"} in play.`);
  }

  renderGames(ladder, preset) {
    const list = $("ladder-games");
    list.replaceChildren();
    if (!ladder.games.length) {
      list.append(el("li", "No ladder games in play right now: they start as soon as a bot joins."));
    }
    for (const game of ladder.games) {
      const item = el("li", "", "entry");
      item.dataset.game = game.game_id;
      game.players.forEach((handle, i) => {
        if (i) item.append(i === game.players.length - 1 ? " and " : ", ");
        const who = el("a", handle);
        who.href = this.page.profileLink(handle, preset);
        item.append(who);
      });
      const watch = el("a", "Watch", "watch");
      watch.href = this.page.linkTo(game.game_id, true);
      watch.setAttribute("aria-label", `Watch ${game.players.join(" against ")}`);
      item.append(" · ", watch);
      list.append(item);
    }
  }

  renderMembers(ladder, preset) {
    const body = $("ladder-members");
    body.replaceChildren();
    for (const member of ladder.members) {
      const row = el("tr");
      row.dataset.handle = member.handle;
      const who = el("td");
      const a = el("a", member.handle);
      a.href = this.page.profileLink(member.handle, preset);
      who.append(a);
      if (member.reference) who.append(" ", el("span", "reference", "reference"));
      row.append(who, el("td", String(Math.round(member.rating)), "num"),
        el("td", `${member.playing} of ${member.games_at_once}`, "num"));
      body.append(row);
    }
  }
}
