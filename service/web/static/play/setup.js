// Before a game: the form that creates one against bots (or with open seats for friends),
// joining or watching one by id, an invite link's claim, and the lobby. Signed in
// (account.js), a new game's first seat and every claim are the account's: its handle
// names the seat and its key plays it.

import { playerName } from "./table.js";

const $ = (id) => document.getElementById(id);

/** The page's parts this module uses: `api`, `session`, `say(text, isError)`,
 * `explain(error)`, `linkTo(gameId, watch)`, `openGame(gameId, watch)`, `account` (the
 * account panel) and `features` (what the deployment offers). */
let page = null;

export function setUp(parts) { page = parts; }

/** Signed in, the name fields go: the account's handle names its seats. */
export function showSignedIn(signedIn) {
  for (const label of [$("create-name"), $("join-name")]) {
    label.hidden = signedIn;
    label.querySelector("input").disabled = signedIn;
  }
}

/** One opponent of the form: a bot chosen by its short name, its description written
 * below the list (a whole description as an option's text made the select, and so the
 * page, wider than a phone), or an open seat a friend claims by its invite link. */
function addOpponent(kind, bots) {
  const row = document.createElement("div");
  row.className = "bot-row";
  const select = document.createElement("select");
  select.name = "seat";
  select.setAttribute("aria-label", kind === "bot" ? "Bot" : "Open seat");
  const options = kind === "bot" ? bots.map((b) => [b.name, b.name]) : [["", "open seat (a friend claims it)"]];
  for (const [value, label] of options) select.add(new Option(label, value));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => row.remove());
  const about = document.createElement("p");
  about.className = "about";
  const describe = () => {
    const bot = bots.find((b) => b.name === select.value);
    about.textContent = bot ? bot.description : "You get an invite link for it once the game is created.";
  };
  select.addEventListener("change", describe);
  describe();
  row.append(select, remove, about);
  $("bot-rows").append(row);
}

export async function showSetup() {
  $("setup").hidden = false;
  const [{ presets }, { bots }] = await Promise.all([page.api.presets(), page.api.bots()]);
  for (const [name, rules] of Object.entries(presets)) {
    $("preset").add(new Option(`${name} (${rules.hand_sizes.length} rounds)`, name));
  }
  for (const [value, label] of [["", "every round (3 to 13 cards)"], ["1", "1 round"], ["2", "2 rounds"], ["3", "3 rounds"], ["5", "5 rounds"]]) {
    $("rounds").add(new Option(label, value));
  }
  page.account.start(presets, bots);
  addOpponent("bot", bots);
  $("add-bot").addEventListener("click", () => addOpponent("bot", bots));
  $("add-human").addEventListener("click", () => addOpponent("open", bots));
  $("create").addEventListener("submit", (e) => { e.preventDefault(); create(new FormData(e.target)); });
  $("join").addEventListener("submit", (e) => { e.preventDefault(); join(new FormData(e.target)); });
  $("watch").addEventListener("click", () => {
    const id = $("join").elements.game.value.trim();
    if (id) location.assign(page.linkTo(id, true));
  });
  if (page.features.lobby) {
    $("lobby").hidden = false;
    $("lobby-refresh").addEventListener("click", showLobby);
    $("lobby-status").addEventListener("change", showLobby);
    showLobby();
  }
  page.say("Create a game, or join one.");
}

async function create(form) {
  const me = page.session.account(); // signed in: the first seat is the account's, played with its key
  const players = [me ? { account: me.handle } : { name: form.get("name") }];
  for (const select of $("bot-rows").querySelectorAll("select")) {
    players.push(select.value ? { bot: select.value } : { name: null });
  }
  const rules = { preset: form.get("preset") };
  const rounds = Number(form.get("rounds"));
  if (rounds) rules.hand_sizes = Array.from({ length: rounds }, (_, i) => 3 + i);
  const body = { players, rules };
  if (form.get("turn_seconds")) body.turn_seconds = Number(form.get("turn_seconds"));
  try {
    const created = await page.api.create(body, me?.key);
    if (!me) page.session.saveSeat(created.game_id, 0, created.seats[0].token);
    history.pushState(null, "", page.linkTo(created.game_id, false));
    $("setup").hidden = true;
    await page.openGame(created.game_id, false);
  } catch (e) { page.say(`Could not create the game: ${page.explain(e)}`, true); }
}

async function join(form) {
  const gameId = form.get("game").trim();
  try {
    // an id pasted as its invite link works too
    if (gameId.includes("?")) throw new Error("paste the game id, or open the invite link itself");
    let seat = form.get("seat");
    if (seat === "") {
      const view = await page.api.view(gameId);
      if (!view.open_seats.length) throw new Error("no open seat in that game: watch it instead");
      seat = view.open_seats[0];
    }
    await claim(gameId, Number(seat), form.get("name") || "you");
    history.pushState(null, "", page.linkTo(gameId, false));
    $("setup").hidden = true;
    await page.openGame(gameId, false);
  } catch (e) { page.say(`Could not join: ${page.explain(e)}`, true); }
}

/** Claim a seat: the signed-in account's (named by its handle), else by `name` with the
 * seat's token kept in this browser. */
async function claim(gameId, seat, name) {
  const me = page.session.account();
  const claimed = await page.api.claim(gameId, seat, name, me?.key);
  if (!me) page.session.saveSeat(gameId, claimed.seat, claimed.token);
  return claimed;
}

/** An invite link (`?game=…&claim=N`): who is at the table, then the seat for a name. */
export async function showInvite(gameId, seat) {
  $("invite").hidden = false;
  $("invite-title").textContent = `Seat ${seat} of game ${gameId}`;
  $("invite-watch").href = page.linkTo(gameId, true);
  let view;
  try {
    view = await page.api.view(gameId);
  } catch (e) {
    page.say(`Could not open game ${gameId}: ${page.explain(e)}`, true);
    $("invite-form").hidden = true;
    return;
  }
  const me = page.session.account();
  if (me && view.players.some((p) => p.account?.toLowerCase() === me.handle.toLowerCase())) {
    // the signed-in account sits in this game already: open it as that seat
    history.replaceState(null, "", page.linkTo(gameId, false));
    $("invite").hidden = true;
    await page.openGame(gameId, false);
    return;
  }
  const list = $("invite-players");
  list.replaceChildren(...view.players.map((p) => {
    const item = document.createElement("li");
    item.textContent = p.open ? `seat ${p.seat}: open` : `seat ${p.seat}: ${playerName(view, p.seat)}`;
    return item;
  }));
  const rounds = view.round.rounds;
  $("invite-about").textContent = `${view.rules.preset}, ${rounds} round${rounds === 1 ? "" : "s"}, ${view.players.length} players.`
    + (view.seeded_by_creator ? " The creator chose this game's seed, so they can know every hand." : "");
  if (!view.open_seats.includes(seat)) {
    $("invite-form").hidden = true;
    page.say(`Seat ${seat} is taken (or the game has no such seat): you can watch the game.`, true);
    return;
  }
  $("invite-name").closest("label").hidden = Boolean(me);
  $("invite-name").required = !me;
  page.say(me ? `You are invited to seat ${seat}: take it as ${me.handle}.`
    : `You are invited to seat ${seat}: choose a name and take it.`);
  (me ? $("take-seat") : $("invite-name")).focus();
  $("invite-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("take-seat").disabled = true;
    try {
      await claim(gameId, seat, $("invite-name").value.trim() || "you");
      history.replaceState(null, "", page.linkTo(gameId, false));
      $("invite").hidden = true;
      await page.openGame(gameId, false);
    } catch (err) {
      $("take-seat").disabled = false;
      page.say(`Could not take the seat: ${page.explain(err)}`, true);
    }
  });
}

async function showLobby() {
  const status = $("lobby-status").value;
  const list = $("lobby-games");
  try {
    const { games } = await page.api.lobby(status);
    list.replaceChildren();
    if (!games.length) list.append(Object.assign(document.createElement("li"), { textContent: "No games right now." }));
    for (const g of games) {
      const item = document.createElement("li");
      item.dataset.game = g.game_id;
      const names = g.seats.map((s) => s.name || "open").join(", ");
      item.append(`${g.preset}, ${g.players} players (${names}), round ${g.round} `);
      for (const s of g.seats.filter((seat) => seat.open)) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = `Take seat ${s.seat}`;
        b.addEventListener("click", () => {
          const f = $("join").elements;
          f.game.value = g.game_id;
          f.seat.value = s.seat;
          join(new FormData($("join")));
        });
        item.append(b);
      }
      const watch = document.createElement("a");
      watch.href = page.linkTo(g.game_id, true);
      watch.textContent = "Watch";
      item.append(" ", watch);
      list.append(item);
    }
  } catch (e) { page.say(`The lobby did not answer: ${page.explain(e)}`, true); }
}
