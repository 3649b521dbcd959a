// The page's flow: set up or join a game, then follow it through the stream and act by
// clicking. Rendering is in render.js, the API calls in api.js.
//
// Query parameters: `api` (the service's base URL; default this origin), `game` (a game
// to open), `watch` (open it as a spectator), `pace` (ms between opponents' moves).

import { Api, Problem } from "./api.js";
import {
  describeEvent, renderActions, renderFinal, renderHand, renderPile, renderPlayers,
  renderRoundEnd, renderSummary, renderTable, tickClock,
} from "./render.js";
import { cardLabel } from "./cards.js";
import { SeatControls } from "./seat.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const api = new Api(params.get("api") || location.origin);
const pace = Math.max(0, Number(params.get("pace") ?? 500));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

const state = {
  features: { lobby: false, record: false },
  gameId: null, seat: null, token: null, view: null,
  arranged: false, arrangement: null, queue: [], draining: false, stop: null, acting: null,
  sheet: null, solved: null, // the finished game's score sheet, the last hand's solver answer
  live: false, // set by the stream's first view: the events before it are the replay
};

function say(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function explain(error) {
  return error instanceof Problem ? `${error.message} (${error.code})` : String(error.message || error);
}

// --- the seat token, kept per game in this browser so a reload resumes the seat --------

const sessionKey = (gameId) => `three-thirteen:${api.base}:${gameId}`;

function saveSeat(gameId, seat, token) {
  localStorage.setItem(sessionKey(gameId), JSON.stringify({ seat, token }));
}

function loadSeat(gameId) {
  try { return JSON.parse(localStorage.getItem(sessionKey(gameId))); } catch { return null; }
}

function linkTo(gameId, watch) {
  const q = new URLSearchParams(params);
  q.set("game", gameId);
  if (watch) q.set("watch", "1"); else q.delete("watch");
  return `?${q}`;
}

// --- setting up a game ---------------------------------------------------------------

function addOpponent(kind, bots) {
  const row = document.createElement("div");
  row.className = "bot-row";
  const select = document.createElement("select");
  select.name = "seat";
  const options = kind === "bot" ? bots.map((b) => [b.name, `${b.name}: ${b.description}`]) : [["", "an open seat (a friend claims it)"]];
  for (const [value, label] of options) select.add(new Option(label, value));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => row.remove());
  row.append(select, remove);
  $("bot-rows").append(row);
}

async function showSetup() {
  $("setup").hidden = false;
  const [{ presets }, { bots }] = await Promise.all([api.presets(), api.bots()]);
  for (const [name, rules] of Object.entries(presets)) {
    $("preset").add(new Option(`${name} (${rules.hand_sizes.length} rounds)`, name));
  }
  for (const [value, label] of [["", "every round (3 to 13 cards)"], ["1", "1 round"], ["2", "2 rounds"], ["3", "3 rounds"], ["5", "5 rounds"]]) {
    $("rounds").add(new Option(label, value));
  }
  addOpponent("bot", bots);
  $("add-bot").addEventListener("click", () => addOpponent("bot", bots));
  $("add-human").addEventListener("click", () => addOpponent("open", bots));
  $("create").addEventListener("submit", (e) => { e.preventDefault(); create(new FormData(e.target)); });
  $("join").addEventListener("submit", (e) => { e.preventDefault(); join(new FormData(e.target)); });
  $("watch").addEventListener("click", () => {
    const id = $("join").elements.game.value.trim();
    if (id) location.assign(linkTo(id, true));
  });
  if (state.features.lobby) {
    $("lobby").hidden = false;
    $("lobby-refresh").addEventListener("click", showLobby);
    $("lobby-status").addEventListener("change", showLobby);
    showLobby();
  }
  say("Create a game, or join one.");
}

async function create(form) {
  const players = [{ name: form.get("name") }];
  for (const select of $("bot-rows").querySelectorAll("select")) {
    players.push(select.value ? { bot: select.value } : { name: null });
  }
  const rules = { preset: form.get("preset") };
  const rounds = Number(form.get("rounds"));
  if (rounds) rules.hand_sizes = Array.from({ length: rounds }, (_, i) => 3 + i);
  const body = { players, rules };
  if (form.get("turn_seconds")) body.turn_seconds = Number(form.get("turn_seconds"));
  try {
    const created = await api.create(body);
    saveSeat(created.game_id, 0, created.seats[0].token);
    history.pushState(null, "", linkTo(created.game_id, false));
    $("setup").hidden = true;
    await openGame(created.game_id, false);
  } catch (e) { say(`Could not create the game: ${explain(e)}`, true); }
}

async function join(form) {
  const gameId = form.get("game").trim();
  try {
    let seat = form.get("seat");
    if (seat === "") {
      const view = await api.view(gameId);
      if (!view.open_seats.length) throw new Error("no open seat in that game: watch it instead");
      seat = view.open_seats[0];
    }
    const claimed = await api.claim(gameId, Number(seat), form.get("name") || "you");
    saveSeat(gameId, claimed.seat, claimed.token);
    history.pushState(null, "", linkTo(gameId, false));
    $("setup").hidden = true;
    await openGame(gameId, false);
  } catch (e) { say(`Could not join: ${explain(e)}`, true); }
}

async function showLobby() {
  const status = $("lobby-status").value;
  const list = $("lobby-games");
  try {
    const { games } = await api.lobby(status);
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
      watch.href = linkTo(g.game_id, true);
      watch.textContent = "Watch";
      item.append(" ", watch);
      list.append(item);
    }
  } catch (e) { say(`The lobby did not answer: ${explain(e)}`, true); }
}

// --- following a game ----------------------------------------------------------------

async function openGame(gameId, watch) {
  const session = watch ? null : loadSeat(gameId);
  Object.assign(state, { gameId, seat: session ? session.seat : null, token: session ? session.token : null });
  document.body.dataset.game = gameId;
  document.body.dataset.seat = state.seat ?? "spectator";
  $("game").hidden = false;
  say(state.token ? "Connecting to your seat…" : "Watching…");
  try {
    show(await api.view(gameId, state.token));
  } catch (e) {
    if (e instanceof Problem && e.code === "invalid_token") {
      // the stored seat is of a game this server no longer knows by that token
      localStorage.removeItem(sessionKey(gameId));
      return openGame(gameId, true);
    }
    $("game").hidden = true;
    say(`Could not open game ${gameId}: ${explain(e)}`, true);
    return;
  }
  // the log is rebuilt from the stream (after=0), so a reload shows every move again
  $("log").replaceChildren();
  state.stop = api.follow(gameId, state.token, {
    onEvent: (event) => enqueue({ event }),
    onView: (view) => enqueue({ view }),
    onEnd: () => say("The game is over."),
  });
}

function enqueue(message) {
  state.queue.push(message);
  if (!state.draining) drain();
}

/** Apply the stream's messages in order; another seat's move waits `pace` ms, so a bot's
 * quick moves appear one by one instead of all at once. The replay of the events before
 * this page connected (up to the stream's first view) is shown at once. */
async function drain() {
  state.draining = true;
  while (state.queue.length) {
    const { event, view } = state.queue.shift();
    if (view) {
      show(view);
      state.live = true;
      document.body.dataset.live = "true";
      continue;
    }
    log(event);
    const other = "seat" in event && event.seat !== state.seat;
    if (state.live && other && (event.type === "draw" || event.type === "discard" || event.type === "went_out")) {
      if (event.type !== "draw") setPileTop(event.card || event.discard);
      markMover(event.seat);
      await sleep(pace);
    }
  }
  state.draining = false;
}

function log(event) {
  const item = document.createElement("li");
  item.dataset.type = event.type;
  item.textContent = describeEvent(state.view, event);
  $("log").prepend(item);
}

function setPileTop(card) {
  const top = $("discard-top");
  if (top) { top.textContent = cardLabel(card); top.dataset.card = card; }
}

function markMover(seat) {
  for (const row of $("players").tBodies[0].rows) row.classList.toggle("current", row.dataset.seat === String(seat));
}

function show(view) {
  if (state.view && view.version < state.view.version) return; // an older reply, already past
  const previous = state.view;
  state.view = view;
  const handChanged = !previous || !view.you || previous.you?.hand.join() !== view.you.hand.join();
  if (handChanged) { state.arrangement = null; $("hint-box").replaceChildren(); }
  document.body.dataset.version = view.version;
  document.body.dataset.viewSeat = view.you ? view.you.seat : "spectator";
  document.body.dataset.status = view.status;
  document.body.dataset.round = view.round.number;
  document.body.dataset.yourTurn = String(view.legal_actions.length > 0);
  renderSummary(view, view.clock && view.clock.deadline);
  renderPlayers(view);
  renderPile(view);
  renderTable(view);
  renderHand(view, state.arrangement, act);
  renderActions(view, act);
  renderRoundEnd(view);
  seat.render(view);
  if (view.status === "finished") showFinal(view);
  if (state.arranged && !state.arrangement && view.you) arrange();
  if (view.status !== "finished") {
    say(view.legal_actions.length ? "Your move." : state.token ? "Waiting for the others…" : "Watching live.");
  }
}

/** The final table; the record's score sheet is fetched once per game, however many
 * views of the finished game arrive (the reply, the stream's last view, rematch waits). */
async function showFinal(view) {
  renderFinal(view, state.sheet?.gameId === view.game_id ? state.sheet.text : null, api.recordUrl(view.game_id));
  if (!state.features.record || state.sheet?.gameId === view.game_id) return;
  state.sheet = { gameId: view.game_id, text: null };
  try {
    state.sheet.text = await api.scoreSheet(view.game_id);
    renderFinal(view, state.sheet.text, api.recordUrl(view.game_id));
  } catch (e) {
    state.sheet = null; // the next view of the end asks again
    say(`The record did not load: ${explain(e)}`, true);
  }
}

/** Send one decision. A second click on the same view is dropped (one decision per
 * version); a click on a newer view is sent even while the previous reply is on its way,
 * since the stream may show the move's result before the reply to it arrives. */
async function act(action) {
  const version = state.view.version;
  if (state.acting === version) return;
  state.acting = version;
  for (const b of $("actions").querySelectorAll("button")) b.disabled = true;
  try {
    show(await api.act(state.gameId, state.token, action, version));
  } catch (e) {
    say(`Not played: ${explain(e)}`, true);
    if (e instanceof Problem && e.status === 412) show(await api.view(state.gameId, state.token));
  } finally {
    if (state.acting === version) state.acting = null;
  }
}

function solveBody(view, hand) {
  const body = { hand, round: view.round.number, rules: view.rules };
  if (view.rules.lay_off && view.round.table.length) {
    body.table = view.round.table.slice(0, 12).map((m) => [...m.cards, ...m.layoffs.flatMap((l) => l.cards)]);
  }
  return body;
}

/** The solver's answer for the view's hand: asked once per hand and table, shared by
 * Arrange and Hint. */
function solveHand(view) {
  const body = solveBody(view, view.you.hand);
  const key = JSON.stringify(body);
  if (state.solved?.key !== key) {
    const answer = api.solve(body);
    state.solved = { key, answer };
    answer.catch(() => { if (state.solved?.answer === answer) state.solved = null; });
  }
  return state.solved.answer;
}

async function arrange() {
  const view = state.view;
  try {
    const solved = await solveHand(view);
    if (state.view !== view) return;
    state.arrangement = solved;
    renderHand(view, state.arranged ? solved : null, act);
  } catch (e) { say(`The solver did not answer: ${explain(e)}`, true); }
}

async function hint() {
  const view = state.view;
  const box = $("hint-box");
  try {
    const solved = await solveHand(view);
    const list = document.createElement("ul");
    list.className = "hints";
    const outs = new Set(solved.go_out.map((g) => g.discard));
    if (view.you.hand.length > view.round.hand_size) {
      for (const d of solved.discards) {
        const item = document.createElement("li");
        item.dataset.card = d.card;
        item.textContent = `Discard ${cardLabel(d.card)}: penalty ${d.penalty}${outs.has(d.card) ? " (goes out)" : ""}`;
        list.append(item);
      }
    } else {
      const item = document.createElement("li");
      item.textContent = `Your hand's penalty now: ${solved.penalty}. Draw, then ask again for each discard.`;
      list.append(item);
    }
    box.replaceChildren(list);
  } catch (e) { say(`The solver did not answer: ${explain(e)}`, true); }
}

/** Every seat keeps its token in the rematch, so this page opens it as the same seat. */
function openRematch(gameId) {
  saveSeat(gameId, state.seat, state.token);
  if (state.stop) state.stop();
  Object.assign(state, { view: null, arrangement: null, queue: [], live: false, acting: null });
  delete document.body.dataset.live;
  $("final").hidden = true;
  history.pushState(null, "", linkTo(gameId, false));
  openGame(gameId, false);
}

const seat = new SeatControls({
  api, say, explain, show, openRematch, linkTo,
  current: () => ({ gameId: state.gameId, token: state.token }),
});

// --- start ---------------------------------------------------------------------------

async function start() {
  $("api-doc").href = `${api.base}/docs`;
  $("home").href = params.get("api") ? `?api=${encodeURIComponent(params.get("api"))}` : "?";
  $("arrange").addEventListener("click", () => {
    state.arranged = !state.arranged;
    $("arrange").setAttribute("aria-pressed", String(state.arranged));
    if (state.arranged && !state.arrangement) arrange();
    else renderHand(state.view, state.arranged ? state.arrangement : null, act);
  });
  $("hint").addEventListener("click", hint);
  setInterval(tickClock, 1000);
  try {
    // what this deployment offers: the lobby and game records are optional features
    const doc = await api.document();
    state.features.lobby = Boolean(doc.paths["/v1/games"]?.get);
    state.features.record = Boolean(doc.paths["/v1/games/{game_id}/record"]?.get);
    const gameId = params.get("game");
    if (gameId) await openGame(gameId, params.has("watch"));
    else await showSetup();
  } catch (e) { say(`The service at ${api.base} did not answer: ${explain(e)}`, true); }
}

addEventListener("popstate", () => location.reload());
start();
