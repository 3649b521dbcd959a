// An account's profile (`?profile=<handle>`, `&preset=` for the history shown): its
// rating in every preset, a provisional one marked, and the rating history of one preset
// as a chart (ratingchart.js) with its points in a table. Profiles are public: no key.

import { Problem } from "./api.js";
import { el, link } from "./dom.js";
import { pointWords, ratingChart, whole } from "./ratingchart.js";

const $ = (id) => document.getElementById(id);

/** The most history points drawn: a long history is read in pages of 500 up to this. */
const MOST_POINTS = 2000;

export class ProfileView {
  /** `page`: `api`, `say`, `explain`, `linkTo(gameId, watch)`, `profileLink(handle, preset)`,
   * `boardLink(preset, bot)`. */
  constructor(page) {
    this.page = page;
    this.shown = 0; // which history request is the latest: a slower earlier one is dropped
  }

  async show(handle, preset) {
    $("profile").hidden = false;
    $("profile-title").textContent = handle;
    let profile;
    try {
      profile = await this.page.api.profile(handle);
    } catch (e) {
      this.page.say(e instanceof Problem && e.status === 404
        ? `There is no account ${handle}.` : `The profile did not load: ${this.page.explain(e)}`, true);
      return;
    }
    document.body.dataset.profile = profile.handle;
    $("profile-title").textContent = profile.handle;
    $("profile-kind").textContent = profile.reference ? "reference bot" : profile.bot ? "bot" : "";
    this.renderRatings(profile);
    const presets = Object.keys(profile.ratings);
    // the preset asked for, else the one with the most rated games (the first on a tie)
    const chosen = presets.includes(preset) ? preset
      : presets.reduce((best, p) => (profile.ratings[p].games > profile.ratings[best].games ? p : best));
    const select = $("profile-preset");
    select.replaceChildren(...presets.map((p) => new Option(`${p} (${profile.ratings[p].games} rated)`, p)));
    select.value = chosen;
    select.onchange = () => {
      // the address names the history shown, so a reload or a shared link shows it again
      history.replaceState(null, "", this.page.profileLink(profile.handle, select.value));
      this.history(profile, select.value);
    };
    this.page.say(`${profile.handle}'s ratings.`);
    await this.history(profile, chosen);
  }

  /** A row per preset: rating, deviation, games; "provisional" while the deviation is
   * wide (too few recent games to trust), as the API says. */
  renderRatings(profile) {
    const body = $("profile-ratings");
    body.replaceChildren();
    for (const [preset, r] of Object.entries(profile.ratings)) {
      const row = el("tr");
      row.dataset.preset = preset;
      row.dataset.provisional = String(r.provisional);
      const name = el("th");
      name.scope = "row";
      name.append(link(preset, this.page.boardLink(preset, profile.bot)));
      const rating = el("td", whole(r.rating), "num");
      if (r.provisional) rating.append(" ", el("span", "provisional", "provisional"));
      row.append(name, rating, el("td", whole(r.deviation), "num"), el("td", String(r.games), "num"));
      body.append(row);
    }
  }

  /** The preset's history: every point (read in pages), drawn and listed. */
  async history(profile, preset) {
    const ticket = ++this.shown;
    const box = $("profile-history");
    box.replaceChildren(el("p", "Loading…", "help"));
    const points = [];
    try {
      let start = 0;
      while (start !== null && points.length < MOST_POINTS) {
        const page = await this.page.api.ratingHistory(profile.handle, preset, start);
        points.push(...page.history);
        start = page.next_start;
      }
    } catch (e) {
      if (ticket === this.shown) box.replaceChildren(el("p", `The history did not load: ${this.page.explain(e)}`, "error"));
      return;
    }
    if (ticket !== this.shown) return;
    document.body.dataset.historyPreset = preset;
    if (!points.length) {
      box.replaceChildren(el("p", profile.reference
        ? `A reference bot's rating is fixed (an anchor of the ratings): it has no history.`
        : `No rated ${preset} games yet: the rating starts at 1500, provisional.`, "help"));
      return;
    }
    const figure = el("figure", "", "chart-box");
    box.replaceChildren(figure);
    const width = figure.clientWidth - 16; // its padding
    figure.append(ratingChart(points, { handle: profile.handle, preset, width }),
      el("figcaption", `${profile.handle}'s ${preset} rating after each rated game, oldest first; `
        + "the band is the rating ± its deviation (the narrower, the surer)."));
    box.append(this.pointsTable(points));
  }

  /** The chart's points as a table (for a screen reader, or to read exact numbers), each
   * game a link that opens it as a spectator. */
  pointsTable(points) {
    const details = el("details", "", "points");
    details.append(el("summary", `The ${points.length} points as a table`));
    const table = el("table", "", "ratings-table");
    const head = el("tr");
    for (const title of ["Game", "Ended", "Place", "Rating", "±"]) {
      const th = el("th", title);
      th.scope = "col";
      head.append(th);
    }
    table.append(el("thead"), el("tbody"));
    table.tHead.append(head);
    points.forEach((p, i) => {
      const row = el("tr");
      row.dataset.game = p.game_id;
      const game = el("td");
      const a = link(String(i + 1), this.page.linkTo(p.game_id, true));
      a.setAttribute("aria-label", `open ${pointWords(p, i + 1)}`);
      game.append(a);
      row.append(game, el("td", new Date(p.at).toLocaleDateString()),
        el("td", `${p.place} of ${p.players}`), el("td", whole(p.rating), "num"), el("td", whole(p.deviation), "num"));
      table.tBodies[0].append(row);
    });
    const scroll = el("div", "", "points-scroll"); // many points: the list scrolls down, not sideways
    scroll.append(table);
    details.append(scroll);
    return details;
  }
}
