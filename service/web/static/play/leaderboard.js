// The leaderboards (`?leaderboard=<preset>`, `&bot=true` for the bots'): a preset's
// established ratings, best first, a page at a time ("More" reads the next from the
// API's `next_start`). People and bots are on separate boards, as the API keeps them.

const $ = (id) => document.getElementById(id);

/** Entries read per page: a phone's screenful or two. */
const PAGE = 25;

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export class LeaderboardView {
  /** `page`: `api`, `say`, `explain`, `profileLink(handle, preset)`, `boardLink(preset, bot)`. */
  constructor(page) {
    this.page = page;
    this.shown = 0; // which board is the latest asked for: a slower earlier answer is dropped
    this.next = null;
    this.references = new Set(); // the reference bots' names: marked on the bots' board
  }

  async show(preset, bot) {
    $("leaderboard").hidden = false;
    const [{ presets }, { bots }] = await Promise.all([this.page.api.presets(), this.page.api.bots()]);
    this.references = new Set(bots.map((b) => b.name));
    const names = Object.keys(presets);
    const select = $("board-preset");
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    select.value = names.includes(preset) ? preset : names[0];
    $("board-bot").value = String(bot);
    const change = () => {
      // the address names the board shown, so a reload or a shared link shows it again
      history.replaceState(null, "", this.page.boardLink(select.value, $("board-bot").value === "true"));
      this.load();
    };
    select.addEventListener("change", change);
    $("board-bot").addEventListener("change", change);
    $("board-more").addEventListener("click", () => this.more());
    await this.load();
  }

  /** The chosen board from its first entry. */
  async load() {
    $("board-entries").replaceChildren();
    $("board-empty").hidden = true;
    this.next = 0;
    await this.more();
  }

  /** The next page of the board, appended under the entries already shown. */
  async more() {
    const preset = $("board-preset").value;
    const bot = $("board-bot").value === "true";
    const ticket = ++this.shown;
    const button = $("board-more");
    button.disabled = true;
    let answer;
    try {
      answer = await this.page.api.leaderboard(preset, bot, this.next, PAGE);
    } catch (e) {
      if (ticket === this.shown) {
        this.page.say(`The leaderboard did not load: ${this.page.explain(e)}`, true);
        button.disabled = false;
      }
      return;
    }
    if (ticket !== this.shown) return;
    const body = $("board-entries");
    body.append(...answer.entries.map((entry) => this.row(entry, preset)));
    this.next = answer.next_start;
    button.hidden = answer.next_start === null;
    button.disabled = false;
    $("board-empty").hidden = body.children.length > 0;
    document.body.dataset.board = `${preset}:${bot}`;
    this.page.say(`The ${preset} leaderboard of ${bot ? "bots" : "people"}: ${body.children.length} shown.`);
  }

  row(entry, preset) {
    const row = el("tr");
    row.dataset.handle = entry.handle;
    row.dataset.rank = entry.rank;
    const who = el("td");
    const a = el("a", entry.handle);
    a.href = this.page.profileLink(entry.handle, preset);
    who.append(a);
    // the reference bots are the boards' anchors: their ratings are fixed, not earned
    if (entry.bot && this.references.has(entry.handle)) who.append(" ", el("span", "reference", "reference"));
    row.append(el("td", String(entry.rank), "num"), who, el("td", String(Math.round(entry.rating)), "num"),
      el("td", String(Math.round(entry.deviation)), "num"), el("td", String(entry.games), "num"));
    return row;
  }
}
