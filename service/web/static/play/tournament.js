// Tournaments (docs/tournaments.md): one tournament's page (`?tournament=<id>`): what it
// is, its standings, its rounds with each table's game to watch and the byes; and the
// list of tournaments (`?tournaments`), open, running and finished. The service's move
// workers pair the rounds and its standings change as games end, so a running
// tournament's page reads it again on a timer, as the bot ladder's does, until it ends.

import { Problem } from "./api.js";
import { clockText } from "./challenges.js";
import { el, link } from "./dom.js";

const $ = (id) => document.getElementById(id);

/** Between two reads of a running tournament: a game that ends shows in the standings
 * within this, and the next round's tables within this of the service pairing it. */
const REFRESH_MS = 3000;

/** The lists' sections, in the order shown: what is being played first. */
const STATUSES = ["running", "open", "finished"];

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

/** Points and Buchholz scores are whole or half points: 2, 1.5, never 1.4999. */
function points(n) { return String(Math.round(n * 2) / 2); }

function systemName(t) { return t.system === "swiss" ? "Swiss" : "Round robin"; }

/** Where the tournament is: its entrants before it starts, its round while it runs,
 * its winner once over. */
function progress(t) {
  if (t.status === "open") {
    const when = t.starts_at ? `starts ${new Date(t.starts_at).toLocaleString()}` : "starts when its creator starts it";
    const invited = t.invited.length ? `, ${t.invited.length} invited` : "";
    return `${plural(t.entrants.length, "entrant")}${invited}${t.open ? " (open to join)" : ""}; ${when}`;
  }
  const round = `round ${t.played.length}${t.rounds ? ` of ${t.rounds}` : ""}`;
  if (t.status === "running") return `${plural(t.entrants.length, "player")}, ${round}`;
  if (!t.played.length) return "ended unplayed: too few entrants when it was due";
  return `won by ${t.standings[0].handle} after ${plural(t.played.length, "round")}`;
}

/** The players' handles, each a link to the profile: "ann, bob and cid". */
function players(handles, profileLink) {
  const nodes = [];
  handles.forEach((handle, i) => {
    if (i) nodes.push(i === handles.length - 1 ? " and " : ", ");
    nodes.push(link(handle, profileLink(handle)));
  });
  return nodes;
}

export class TournamentView {
  /** `page`: `api`, `say`, `explain`, `linkTo(gameId, watch)`, `profileLink(handle)`,
   * `tournamentsLink()`. */
  constructor(page) {
    this.page = page;
    this.shown = 0; // which read is the latest: a slower earlier answer is dropped
    this.drawn = null; // the tournament as last drawn, to redraw only what changed
    this.timer = null;
  }

  async show(id) {
    this.id = id;
    $("tournament").hidden = false;
    $("tournament-title").textContent = id;
    $("tournament-all").href = this.page.tournamentsLink();
    if (!await this.refresh() || this.drawn?.status === "finished") return;
    // a hidden tab does not need the standings: the timer reads them only while they
    // are seen, and a tab shown again reads them at once rather than on the next tick
    this.timer = setInterval(() => { if (!document.hidden) this.refresh(); }, REFRESH_MS);
    document.addEventListener("visibilitychange", () => { if (!document.hidden && this.timer) this.refresh(); });
  }

  /** Read the tournament and draw it if it changed; once finished, it changes no more,
   * so the timer stops. False when there is no such tournament (nothing to follow). */
  async refresh() {
    const ticket = ++this.shown;
    let t;
    try {
      t = await this.page.api.tournament(this.id);
    } catch (e) {
      if (e instanceof Problem && e.status === 404) {
        this.stop();
        this.page.say(`There is no tournament ${this.id}.`, true);
        return false;
      }
      // a dropped read: the next tick tries again
      if (ticket === this.shown) this.page.say(`The tournament did not load: ${this.page.explain(e)}`, true);
      this.drawn = null; // so the next answer is drawn, and the status line says it again
      return true;
    }
    if (ticket !== this.shown) return true;
    // redrawn only when it changed: a reader's focus or selection in it survives the timer
    if (JSON.stringify(t) !== JSON.stringify(this.drawn)) this.render(t);
    this.drawn = t;
    if (t.status === "finished") this.stop();
    return true;
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  render(t) {
    $("tournament-title").textContent = t.name;
    const status = $("tournament-status");
    status.textContent = t.status;
    status.className = `tag ${t.status}`;
    $("tournament-system").textContent = systemName(t);
    $("tournament-progress").textContent = progress(t);
    const rules = [`${t.rules.preset ?? "custom"} rules`];
    const rounds = t.rules.hand_sizes?.length;
    if (rounds && rounds !== 11) rules.push(`${plural(rounds, "round")} a game`);
    $("tournament-about").textContent = [`${t.seats} players a table`, ...rules, t.rated ? "rated" : "unrated",
      clockText(t.turn_seconds), `made by ${t.creator}`].join(" · ");
    // before it starts there is nothing to stand on: the entrants instead
    const started = t.status !== "open";
    $("tournament-standings-box").hidden = !started;
    $("tournament-entrants-box").hidden = started;
    if (started) this.renderStandings(t);
    else {
      $("tournament-entrants").replaceChildren(...t.entrants.map((handle) => {
        const item = el("li");
        item.append(link(handle, this.page.profileLink(handle)));
        return item;
      }));
    }
    $("tournament-standings-title").textContent = t.status === "finished" ? "Final standings" : "Standings";
    this.renderRounds(t);
    const games = t.played.flatMap((r) => r.tables);
    const over = games.filter((g) => g.finished).length;
    // for the tests: what is drawn, without reading the page's words
    document.body.dataset.tournament = `${t.status}:${t.played.length}:${over}`;
    this.page.say(`${t.name}: ${t.status}${t.status === "running" ? `, ${plural(over, "game")} of ${games.length} over` : ""}.`);
  }

  /** Place, handle, points, then the tie-breaks in the order the API applies them. */
  renderStandings(t) {
    const body = $("tournament-standings");
    body.replaceChildren(...t.standings.map((s) => {
      const row = el("tr");
      row.dataset.handle = s.handle;
      const who = el("td");
      who.append(link(s.handle, this.page.profileLink(s.handle)));
      const played = el("td", String(s.games), "num");
      if (s.byes) played.append(" ", el("span", `+${plural(s.byes, "bye")}`, "byes"));
      row.append(el("td", String(s.place), "num"), who, el("td", points(s.points), "num"),
        el("td", points(s.buchholz), "num"), el("td", String(s.total), "num"), played);
      return row;
    }));
  }

  /** The rounds, the one in play first: each table's players in turn order with a link
   * that opens its game as a spectator, then the round's byes. */
  renderRounds(t) {
    const box = $("tournament-rounds");
    if (!t.played.length) {
      box.replaceChildren(el("p", t.status === "open" ? "The first round is paired when it starts." : "No rounds were played.", "help"));
      return;
    }
    box.replaceChildren(...[...t.played].reverse().map((round) => {
      const section = el("section", "", "round");
      section.dataset.round = round.round;
      section.append(el("h4", `Round ${round.round}${t.rounds ? ` of ${t.rounds}` : ""}`));
      const list = el("ul", "", "entries");
      round.tables.forEach((table, i) => {
        const item = el("li", `Table ${i + 1}: `, "entry");
        item.dataset.game = table.game_id;
        item.dataset.finished = String(table.finished);
        item.append(...players(table.players, this.page.profileLink), " ",
          el("span", table.finished ? "over" : "in play", `tag ${table.finished ? "finished" : "running"}`), " · ");
        const watch = link("Watch", this.page.linkTo(table.game_id, true));
        watch.className = "watch";
        watch.setAttribute("aria-label", `Watch round ${round.round}, table ${i + 1}: ${table.players.join(" against ")}`);
        item.append(watch);
        list.append(item);
      });
      section.append(list);
      if (round.byes.length) {
        const byes = el("p", `${round.byes.length === 1 ? "Bye" : "Byes"}: `, "byes-line");
        byes.append(...players(round.byes, this.page.profileLink));
        section.append(byes);
      }
      return section;
    }));
  }
}

export class TournamentsView {
  /** `page`: `api`, `say`, `explain`, `profileLink(handle)`, `tournamentLink(id)`. */
  constructor(page) {
    this.page = page;
    this.next = {}; // each list's `next_cursor`: where its next page starts (absent: its first)
  }

  async show() {
    $("tournaments").hidden = false;
    for (const status of STATUSES) $(`tournaments-${status}-more`).addEventListener("click", () => this.more(status));
    await Promise.all(STATUSES.map((status) => this.more(status)));
    document.body.dataset.tournaments = "shown";
    this.page.say("Tournaments: open, running and finished.");
  }

  /** The list's next page, under the entries already shown. */
  async more(status) {
    const button = $(`tournaments-${status}-more`);
    button.disabled = true;
    let answer;
    try {
      answer = await this.page.api.tournaments(status, this.next[status] ?? null);
    } catch (e) {
      this.page.say(`The ${status} tournaments did not load: ${this.page.explain(e)}`, true);
      button.disabled = false;
      return;
    }
    const list = $(`tournaments-${status}`);
    list.append(...answer.tournaments.map((t) => this.entry(t)));
    if (!list.children.length) list.append(el("li", `No ${status} tournaments.`, "none"));
    this.next[status] = answer.next_cursor;
    button.hidden = answer.next_cursor === null;
    button.disabled = false;
  }

  entry(t) {
    const item = el("li", "", "entry");
    item.dataset.tournament = t.tournament_id;
    item.append(link(t.name, this.page.tournamentLink(t.tournament_id)),
      ` · ${systemName(t)}, ${t.seats} a table · ${progress(t)} · by `, link(t.creator, this.page.profileLink(t.creator)));
    return item;
  }
}
