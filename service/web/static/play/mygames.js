// "My games": the signed-in account's games as `GET /v1/me/games` orders them, those
// awaiting its move first (soonest deadline first), each a link that opens the game in
// this page, played with the account's key. Deadlines count down while the list shows.

const $ = (id) => document.getElementById(id);

function el(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** How long until `iso`, in words a glance reads: "42 s", "7 min", "3 h 5 min", or the date. */
export function timeLeft(iso) {
  const left = Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 1000));
  if (left < 120) return `${left} s left`;
  if (left < 3600) return `${Math.floor(left / 60)} min left`;
  if (left < 48 * 3600) return `${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min left`;
  return `until ${new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" })}`;
}

/** A `<time>` that counts down to `iso` (see `tickDeadlines`). */
export function deadlineElement(iso, prefix = "") {
  const time = el("time", `${prefix}${timeLeft(iso)}`, "deadline");
  time.dateTime = iso;
  time.dataset.prefix = prefix;
  return time;
}

/** Every countdown of the account's lists, once a second. */
export function tickDeadlines() {
  for (const time of document.querySelectorAll("#account time.deadline")) {
    time.textContent = `${time.dataset.prefix}${timeLeft(time.dateTime)}`;
  }
}

/** The others at the table, as a phrase ("greedy", "bob and greedy"). */
function others(game) {
  if (!game.players) return "";
  const names = game.players.filter((_, seat) => seat !== game.seat);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0] || "";
}

/** What the entry's link says: what the game waits for, and against whom. */
function headline(game) {
  const against = others(game);
  if (game.status === "finished") {
    if (!game.winners) return "Finished (its state has expired)";
    const result = game.winners.includes(game.seat) ? "you won" : "you lost";
    return `Finished against ${against}: ${result}`;
  }
  if (game.status === "open") return "Waiting for players to join";
  return game.my_turn ? `Your move against ${against}` : `Waiting for ${against}`;
}

export class MyGames {
  /** `page`: `api`, `session`, `say`, `explain`, `linkTo(gameId, watch)`. */
  constructor(page) {
    this.page = page;
  }

  async refresh() {
    const me = this.page.session.account();
    if (!me) return;
    try {
      const { games } = await this.page.api.myGames(me.key);
      if (this.page.session.account()?.key === me.key) this.render(games);
    } catch (e) { this.page.say(`Your games did not load: ${this.page.explain(e)}`, true); }
  }

  render(games) {
    const list = $("my-games");
    list.replaceChildren();
    if (!games.length) list.append(el("li", "No games yet: challenge someone below, or create a game."));
    for (const game of games) {
      const item = el("li", "", game.my_turn ? "entry yours" : "entry");
      item.dataset.game = game.game_id;
      item.dataset.myTurn = String(game.my_turn);
      const link = el("a", headline(game));
      link.href = this.page.linkTo(game.game_id, game.seat === null);
      item.append(link);
      const details = [];
      if (game.round !== null && game.status !== "finished") details.push(`round ${game.round} of ${game.rounds}`);
      if (details.length) item.append(` · ${details.join(" · ")}`);
      if (game.my_turn && game.deadline) item.append(" · ", deadlineElement(game.deadline, "your turn: "));
      list.append(item);
    }
  }

  clear() { $("my-games").replaceChildren(); }
}
