// The page's flow: set up, join or claim a game, then follow it through the stream and
// act by clicking. Rendering is in render.js (summary, hand, scores, final table),
// table.js (the seats around the table, stock and pile) and roundend.js (a round's end);
// the API calls in api.js; the forms before a game (create, join, invite, lobby) in
// setup.js; what the browser keeps (seat tokens, the account's key) in session.js;
// signing in, my games and challenges in account.js; an account's profile and ratings in
// profile.js, the leaderboards in leaderboard.js, the bot ladder's games in ladder.js,
// a tournament's standings and rounds and the list of tournaments in tournament.js, the
// account's mistakes as puzzles in mistakes.js.
//
// Query parameters: `api` (the service's base URL; default this origin), `game` (a game
// to open), `claim` (with `game`: the seat an invite link offers), `watch` (open it as a
// spectator), `pace` (ms between opponents' moves), `linger` (ms a round's result stays
// up when every other seat is a bot), `profile` (an account's profile; `preset`: the
// history shown), `leaderboard` (a preset's board; `bot=true`: the bots'), `ladder` (a
// preset's bot ladder: its games to watch), `tournament` (a tournament's page, live),
// `tournaments` (the list of tournaments), `mistakes` (the signed-in account's mistakes,
// as puzzles).

import { AccountPanel } from "./account.js";
import { renderAnalysis, renderPosition } from "./analysis.js";
import { Api, Problem } from "./api.js";
import { backElement, cardElement, cardLabel } from "./cards.js";
import { LadderView } from "./ladder.js";
import { LeaderboardView } from "./leaderboard.js";
import { MistakesView } from "./mistakes.js";
import { fly } from "./motion.js";
import { ProfileView } from "./profile.js";
import {
  describeEvent, renderActions, renderFinal, renderHand, renderScores, renderSummary, tickClock,
} from "./render.js";
import { RoundEnd, othersAreBots } from "./roundend.js";
import { SeatControls } from "./seat.js";
import { Session } from "./session.js";
import { setUp, showInvite, showSetup, showSignedIn } from "./setup.js";
import { playerName, renderPile, renderSeats, renderTableMelds, setPileTop } from "./table.js";
import { TournamentView, TournamentsView } from "./tournament.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const api = new Api(params.get("api") || location.origin);
const session = new Session(api.base);
const pace = Math.max(0, Number(params.get("pace") ?? 500));
const linger = Math.max(0, Number(params.get("linger") ?? 6000));
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

const state = {
  features: { lobby: false, record: false, analysis: false },
  gameId: null, seat: null, token: null, view: null,
  byAccount: false, // the seat is the signed-in account's: `token` is its key, never stored per game
  arranged: false, arrangement: null, queue: [], draining: false, stop: null, acting: null,
  sheet: null, solved: null, // the finished game's score sheet, the last hand's solver answer
  analysis: null, // the finished game's analysis as last read: { gameId, body, stop }
  lastSeq: 0, // the last event the game's stream sent
  live: false, // set by the stream's first view: the events before it are the replay
  // what the stream says between views: each seat's last move (`fresh` until drawn once)
  // and the card counts those moves changed
  moves: {}, counts: null,
  roundSeen: null, // the last round whose end this page showed (or found on opening)
};

/** The move events a seat's box shows as its last move. */
const MOVES = new Set(["draw", "discard", "went_out", "turn_timed_out"]);

function say(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function explain(error) {
  return error instanceof Problem ? `${error.message} (${error.code})` : String(error.message || error);
}

// --- links ------------------------------------------------------------------------------

/** The page's settings every link keeps (the API's base, the pacing a reader chose);
 * what a link opens (a game, a profile, a board) replaces the rest of the address. An
 * empty value is a flag, written bare (`?tournaments`, not `?tournaments=`). */
const KEPT = ["api", "pace", "linger"];

function pageLink(open) {
  const q = new URLSearchParams();
  for (const name of KEPT) if (params.has(name)) q.set(name, params.get(name));
  for (const [name, value] of Object.entries(open)) if (value !== null && value !== undefined) q.set(name, value);
  return `?${q}`.replace(/=(?=&|$)/g, "");
}

function linkTo(gameId, watch) { return pageLink({ game: gameId, watch: watch ? "1" : null }); }

/** An account's profile, showing `preset`'s history (default: its most played). */
function profileLink(handle, preset = null) { return pageLink({ profile: handle, preset }); }

/** A preset's bot ladder: its games in play, to watch. */
function ladderLink(preset) { return pageLink({ ladder: preset }); }

/** A tournament's page: its standings and rounds, followed live. */
function tournamentLink(id) { return pageLink({ tournament: id }); }

/** The tournaments, open, running and finished. */
function tournamentsLink() { return pageLink({ tournaments: "" }); }

/** The signed-in account's mistakes, as puzzles. */
function mistakesLink() { return pageLink({ mistakes: "" }); }

/** A preset's leaderboard of people, or of bots. */
function boardLink(preset, bot = false) { return pageLink({ leaderboard: preset, bot: bot ? "true" : null }); }

/** The link that offers `seat` of `gameId` to a friend: it opens the claim form for that
 * seat (on this page's address, and with `api` when the page talks to another origin). */
function inviteUrl(gameId, seat) {
  const q = new URLSearchParams();
  if (params.get("api")) q.set("api", params.get("api"));
  q.set("game", gameId);
  q.set("claim", seat);
  return `${location.origin}${location.pathname}?${q}`;
}

async function copyInvite(url) {
  try {
    await navigator.clipboard.writeText(url);
    say("Invite link copied: send it to a friend.");
  } catch {
    say(`Send this link to a friend: ${url}`); // no clipboard (a page on plain http)
  }
}

// --- following a game ----------------------------------------------------------------

/** The seat the signed-in account holds in `gameId` (`{ seat, token: key }`), or null:
 * the public view names each seat's account. */
async function accountSeat(gameId) {
  const me = session.account();
  if (!me) return null;
  try {
    const view = await api.view(gameId);
    const seat = view.players.findIndex((p) => p.account?.toLowerCase() === me.handle.toLowerCase());
    return seat < 0 ? null : { seat, token: me.key, byAccount: true };
  } catch { return null; } // no such game: opening it says so
}

async function openGame(gameId, watch) {
  const held = watch ? null : session.seat(gameId) || await accountSeat(gameId);
  Object.assign(state, {
    gameId, lastSeq: 0, seat: held ? held.seat : null, token: held ? held.token : null, byAccount: Boolean(held?.byAccount),
  });
  document.body.dataset.game = gameId;
  document.body.dataset.seat = state.seat ?? "spectator";
  $("game").hidden = false;
  say(state.token ? "Connecting to your seat…" : "Watching…");
  try {
    show(await api.view(gameId, state.token));
  } catch (e) {
    if (e instanceof Problem && e.code === "invalid_token") {
      // the stored seat is of a game this server no longer knows by that token
      if (!state.byAccount) session.forgetSeat(gameId);
      return openGame(gameId, true);
    }
    $("game").hidden = true;
    say(`Could not open game ${gameId}: ${explain(e)}`, true);
    return;
  }
  // the log is rebuilt from the stream (after=0), so a reload shows every move again
  $("log").replaceChildren();
  state.stop = api.follow(gameId, state.token, {
    onEvent: (event) => { state.lastSeq = event.seq; enqueue({ event }); },
    onView: (view) => enqueue({ view }),
    // the finished game's view says the outcome as it is shown (the stream may end
    // while its last moves are still being paced out)
    onEnd: () => { if (state.view?.status === "finished") sayOutcome(state.view); },
  });
}

function enqueue(message) {
  state.queue.push(message);
  if (!state.draining) drain();
}

/** Apply the stream's messages in order; another seat's move is shown as a move (its
 * card flies, its seat says what it did) and waits `pace` ms, so a bot's quick moves
 * appear one by one instead of all at once. While a round's result is up, the next
 * round's moves wait behind it. The replay of the events before this page connected (up
 * to the stream's first view) is shown at once. */
async function drain() {
  state.draining = true;
  while (state.queue.length) {
    await roundEnd.wait();
    const { event, view } = state.queue.shift();
    if (view) {
      show(view);
      state.live = true;
      document.body.dataset.live = "true";
      continue;
    }
    log(event);
    if (event.type === "round_started") state.moves = {};
    if (!MOVES.has(event.type)) continue;
    state.moves[event.seat] = { event, fresh: state.live };
    if (state.live && event.seat !== state.seat) await showMove(event);
  }
  state.draining = false;
}

/** Another seat's move between two views: its card flies between its seat and the stock
 * or pile, its card count and last-move line change, then the page waits `pace` ms. */
async function showMove(event) {
  const seatBox = () => document.querySelector(`#felt .seat[data-seat="${event.seat}"]`);
  const flight = Math.min(450, pace * 0.8);
  const started = performance.now();
  if (event.type === "draw") state.counts[event.seat] += 1;
  else if (event.type !== "turn_timed_out") state.counts[event.seat] -= 1;
  renderTable();
  markMover(event.seat);
  if (event.type === "draw") {
    const from = event.source === "stock" ? $("stock") : $("pile-top");
    if (event.source === "discard") from?.classList.add("taken"); // what lies below shows with the next view
    const wildRank = state.view.round.wild_rank;
    const card = event.card && event.source === "discard" ? cardElement(event.card, { wildRank }) : backElement();
    await fly(card, from, seatBox(), flight);
  } else if (event.type !== "turn_timed_out") {
    const discarded = event.card || event.discard;
    await fly(cardElement(discarded, { wildRank: state.view.round.wild_rank }), seatBox(), $("pile-top"), flight);
    setPileTop(discarded, state.view.round.wild_rank);
  }
  await sleep(pace - (performance.now() - started));
}

function log(event) {
  const item = document.createElement("li");
  item.dataset.type = event.type;
  item.textContent = describeEvent(state.view, event);
  $("log").prepend(item);
}

/** The one whose move is being shown is the one to play, whatever the last view said. */
function markMover(seat) {
  for (const box of document.querySelectorAll("#felt .seat")) box.classList.toggle("current", box.dataset.seat === String(seat));
}

/** The seats, the stock and pile, the melds on the table: from the view, with the moves
 * the stream has shown since. A move is animated the first time it is drawn only. */
function renderTable() {
  const view = state.view;
  renderSeats(view, {
    counts: state.counts, moves: state.moves,
    inviteUrl: (seat) => inviteUrl(view.game_id, seat), onCopy: copyInvite, profileLink,
  });
  for (const move of Object.values(state.moves)) move.fresh = false;
  renderPile(view, act);
  renderTableMelds(view);
}

/** The status line once the game is over, however it ended (a bot's move included). */
function sayOutcome(view) {
  const names = view.winners.map((s) => playerName(view, s)).join(" and ");
  say(view.finish_reason === "aborted" ? "The game was aborted: no result." : `The game is over: ${names} won.`);
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
  state.counts = view.players.map((p) => p.hand_count);
  renderSummary(view, view.clock && view.clock.deadline);
  renderTable();
  renderHand(view, state.arrangement, act);
  renderActions(view, act);
  renderScores(view);
  seat.render(view);
  if (view.status === "finished") showFinal(view);
  else $("final").hidden = $("analysis").hidden = true;
  if (state.arranged && !state.arrangement && view.you && view.you.hand.length) arrange();
  if (view.status === "finished") sayOutcome(view);
  else say(view.legal_actions.length ? "Your move." : state.token ? "Waiting for the others…" : "Watching live.");
  // a round that ended since the page last looked: its result holds the page (the next
  // round's hand stays hidden) until dismissed, or a few seconds when only bots wait
  const ended = view.last_round ? view.last_round.number : 0;
  if (state.roundSeen === null || ended < state.roundSeen) state.roundSeen = ended;
  else if (ended > state.roundSeen) {
    state.roundSeen = ended;
    roundEnd.show(view, othersAreBots(view));
  }
  $("show-round-end").hidden = !view.last_round;
}

/** The final table; the record's score sheet is fetched once per game, however many
 * views of the finished game arrive (the reply, the stream's last view, rematch waits). */
async function showFinal(view) {
  renderFinal(view, state.sheet?.gameId === view.game_id ? state.sheet.text : null, api.recordUrl(view.game_id));
  showAnalysis(view);
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

/** The final table's analysis: offered once the game is over, by a button that asks
 * for it (POST: the analysis at once if someone asked already, else queued), its progress
 * followed on the game's stream while an analysis worker runs it, then shown. */
function showAnalysis(view) {
  const box = $("analysis");
  box.hidden = !state.features.analysis || view.status !== "finished" || view.finish_reason === "aborted";
  if (box.hidden || state.analysis?.gameId === view.game_id) return;
  if (state.analysis?.stop) state.analysis.stop();
  state.analysis = { gameId: view.game_id, body: null, stop: null };
  $("analysis-body").replaceChildren();
  $("analysis-position").replaceChildren();
  $("analyse").hidden = false;
}

function followAnalysis(view, body) {
  const mine = state.analysis;
  if (!mine || mine.gameId !== view.game_id) return; // another game is shown now
  mine.body = body;
  $("analyse").hidden = true;
  const name = (seat) => playerName(view, seat);
  renderAnalysis($("analysis-body"), body, name, view.players.length, (d) => showPosition(view, d));
  if (body.status === "done" || mine.stop) return;
  // the game's stream sends the analysis' progress (after the events this page has seen)
  const done = async () => {
    mine.stop();
    try {
      followAnalysis(view, await api.analysis(view.game_id));
    } catch (e) {
      say(`The analysis did not load: ${explain(e)}`, true);
    }
  };
  mine.stop = api.follow(view.game_id, null, {
    after: state.lastSeq,
    onEvent: () => {},
    onAnalysis: (progress) => {
      if (state.analysis !== mine) return;
      if (progress.status === "done") { done(); return; }
      mine.body = { ...mine.body, ...progress };
      renderAnalysis($("analysis-body"), mine.body, name, view.players.length, () => {});
    },
  });
}

async function askAnalysis() {
  const view = state.view;
  $("analyse").disabled = true;
  try {
    followAnalysis(view, await api.requestAnalysis(view.game_id));
  } catch (e) {
    say(`The analysis was not queued: ${explain(e)}`, true);
  } finally {
    $("analyse").disabled = false;
  }
}

async function showPosition(view, decision) {
  try {
    const then = await api.viewAt(view.game_id, state.token, decision.version);
    renderPosition($("analysis-position"), decision, then, (seat) => playerName(view, seat));
    $("analysis-position").scrollIntoView({ block: "nearest" });
  } catch (e) {
    say(`That position did not load: ${explain(e)}`, true);
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
  if (!state.byAccount) session.saveSeat(gameId, state.seat, state.token);
  if (state.stop) state.stop();
  roundEnd.close();
  Object.assign(state, {
    view: null, arrangement: null, queue: [], live: false, acting: null, moves: {}, counts: null, roundSeen: null,
  });
  delete document.body.dataset.live;
  $("final").hidden = true;
  history.pushState(null, "", linkTo(gameId, false));
  openGame(gameId, false);
}

const roundEnd = new RoundEnd({ linger });

const account = new AccountPanel({
  api, session, say, explain, linkTo, profileLink,
  onChange: () => showSignedIn(Boolean(session.account())),
});

setUp({ api, session, say, explain, linkTo, openGame, account, features: state.features });

const seat = new SeatControls({
  api, say, explain, show, openRematch, linkTo,
  current: () => ({ gameId: state.gameId, token: state.token }),
});

const links = { api, say, explain, linkTo, profileLink, boardLink, ladderLink, tournamentLink, tournamentsLink };
const profile = new ProfileView(links);
const leaderboard = new LeaderboardView(links);
const ladder = new LadderView(links);
const tournament = new TournamentView(links);
const tournaments = new TournamentsView(links);
const mistakes = new MistakesView({ api, session, say, explain, linkTo });

// --- start ---------------------------------------------------------------------------

async function start() {
  $("api-doc").href = `${api.base}/docs`;
  $("home").href = params.get("api") ? `?api=${encodeURIComponent(params.get("api"))}` : "?";
  $("nav-leaderboard").href = boardLink("classic");
  $("arrange").addEventListener("click", () => {
    state.arranged = !state.arranged;
    $("arrange").setAttribute("aria-pressed", String(state.arranged));
    if (state.arranged && !state.arrangement) arrange();
    else renderHand(state.view, state.arranged ? state.arrangement : null, act);
  });
  $("hint").addEventListener("click", hint);
  $("analyse").addEventListener("click", askAnalysis);
  // the last round's result again, to read at leisure (it does not close by itself then)
  $("show-round-end").addEventListener("click", () => { if (state.view?.last_round) roundEnd.show(state.view, false); });
  setInterval(tickClock, 1000);
  try {
    // what this deployment offers: the lobby and game records are optional features
    const doc = await api.document();
    state.features.lobby = Boolean(doc.paths["/v1/games"]?.get);
    state.features.record = Boolean(doc.paths["/v1/games/{game_id}/record"]?.get);
    state.features.analysis = Boolean(doc.paths["/v1/games/{game_id}/analysis"]?.post);
    // the bot ladder is newer than the rest: a deployment without it has no link to it
    $("nav-ladder").hidden = !doc.paths["/v1/ladder/{preset}"]?.get;
    $("nav-ladder").href = ladderLink("classic");
    // so are tournaments: where the document lists them, the header links to their list
    $("nav-tournaments").hidden = !doc.paths["/v1/tournaments"]?.get;
    $("nav-tournaments").href = tournamentsLink();
    // and an account's mistakes as puzzles: offered beside its games where listed
    const puzzles = Boolean(doc.paths["/v1/me/mistakes"]?.get);
    $("my-mistakes").hidden = !puzzles;
    $("my-mistakes-link").href = mistakesLink();
    const gameId = params.get("game");
    if (params.has("profile")) return await profile.show(params.get("profile"), params.get("preset"));
    if (params.has("leaderboard")) return await leaderboard.show(params.get("leaderboard"), params.get("bot") === "true");
    if (params.has("ladder") && !$("nav-ladder").hidden) return await ladder.show(params.get("ladder"));
    if (params.get("tournament") && !$("nav-tournaments").hidden) return await tournament.show(params.get("tournament"));
    if (params.has("tournaments") && !$("nav-tournaments").hidden) return await tournaments.show();
    if (params.has("mistakes") && puzzles) return await mistakes.show();
    const claim = params.get("claim");
    // an invite link opens the claim, unless this browser already holds a seat there
    if (gameId && claim !== null && /^\d+$/.test(claim) && !params.has("watch") && !session.seat(gameId)) {
      await showInvite(gameId, Number(claim));
    } else if (gameId) await openGame(gameId, params.has("watch"));
    else await showSetup();
  } catch (e) { say(`The service at ${api.base} did not answer: ${explain(e)}`, true); }
}

addEventListener("popstate", () => location.reload());
start();
