// The public API, as any frontend calls it: fetch() for requests, EventSource for the
// stream. Nothing here knows about the page; copy this module into your own frontend.
//
// The base URL is the page's `?api=` (another origin works: the service sends CORS
// headers), else the page's own origin.

/** An error reply of the API: its problem+json body (`code`, `title`, `detail`, …). */
export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code;
    this.body = body;
  }
}

export class Api {
  constructor(base) {
    this.base = base.replace(/\/+$/, "");
  }

  async request(method, path, { token, body, headers = {} } = {}) {
    const h = { Accept: "application/json", ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    if (body !== undefined) h["Content-Type"] = "application/json";
    // no-store: a view is per bearer (the service sends Vary: Authorization); a page that
    // switches seats must never be handed another seat's cached view
    const r = await fetch(this.base + path, {
      method, headers: h, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = r.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await r.json() : await r.text();
    if (!r.ok) throw new Problem(r.status, typeof data === "object" ? data : { detail: data });
    return data;
  }

  document() { return this.request("GET", "/openapi.json"); }
  presets() { return this.request("GET", "/v1/rules/presets"); }
  bots() { return this.request("GET", "/v1/bots"); }
  lobby(status) { return this.request("GET", `/v1/games?status=${encodeURIComponent(status)}`); }
  /** A new game; with an account's `key`, its `{"account": handle}` seat is the account's. */
  create(body, key) { return this.request("POST", "/v1/games", { body, token: key }); }
  view(gameId, token) { return this.request("GET", `/v1/games/${enc(gameId)}`, { token }); }
  /** The view once the game leaves `version` (or after `timeout` s, unchanged). */
  waitView(gameId, token, version, timeout = 25) {
    return this.request("GET", `/v1/games/${enc(gameId)}?wait_version=${version}&timeout=${timeout}`, { token });
  }
  /** Claim an open seat by a name (its token is in the reply), or with an account's `key`
   * (no name: the seat is named by the handle and played with the key). */
  claim(gameId, seat, name, key) {
    return this.request("POST", `/v1/games/${enc(gameId)}/seats/${seat}/claim`,
      key ? { body: {}, token: key } : { body: { name } });
  }
  act(gameId, token, action, version) {
    // If-Match: a click made on a view that has moved on is refused (412), not applied;
    // Idempotency-Key: a retry after a dropped reply is not applied twice
    return this.request("POST", `/v1/games/${enc(gameId)}/actions`, {
      token, body: action,
      headers: { "If-Match": `"${version}"`, "Idempotency-Key": newKey() },
    });
  }
  seatAction(gameId, token, action) {
    // resign and back: allowed at any version, so no If-Match; retried safely all the same
    return this.request("POST", `/v1/games/${enc(gameId)}/actions`, {
      token, body: action, headers: { "Idempotency-Key": newKey() },
    });
  }
  rematch(gameId, token) { return this.request("POST", `/v1/games/${enc(gameId)}/rematch`, { token }); }
  solve(body) { return this.request("POST", "/v1/solve", { body }); }
  /** A finished game's decision analysis (404 `analysis_not_requested` until asked for). */
  analysis(gameId) { return this.request("GET", `/v1/games/${enc(gameId)}/analysis`); }
  requestAnalysis(gameId) { return this.request("POST", `/v1/games/${enc(gameId)}/analysis`); }
  /** A finished game's view at a past version, as the bearer's seat (or a spectator) saw it. */
  viewAt(gameId, token, version) {
    return this.request("GET", `/v1/games/${enc(gameId)}?version=${version}`, { token });
  }
  recordUrl(gameId) { return `${this.base}/v1/games/${enc(gameId)}/record`; }
  scoreSheet(gameId) {
    return this.request("GET", `/v1/games/${enc(gameId)}/record`, { headers: { Accept: "text/plain" } });
  }

  /**
   * Follow a game's stream: `onEvent(event)` for each event, `onView(view)` for each view,
   * in the order the server sent them, and `onAnalysis({status, progress})` as a finished
   * game's analysis moves on. A seat trades its token for a single-use ticket
   * (EventSource cannot send Authorization, and a token in a URL ends up in logs), so a
   * dropped stream is reopened here with a new ticket from the last event seen, instead of
   * letting EventSource retry the used ticket. Returns a function that stops following.
   */
  follow(gameId, token, { onEvent, onView, onEnd, onAnalysis, after = 0 }) {
    const ticket = token
      ? () => this.request("POST", `/v1/games/${enc(gameId)}/stream-tickets`, { token })
      : null;
    return this.#follow(`/v1/games/${enc(gameId)}/stream`, ticket, { onEvent, onView, onEnd, onAnalysis, after });
  }

  // --- accounts and challenges (docs/accounts.md): the key goes in Authorization only --

  createAccount(handle) { return this.request("POST", "/v1/accounts", { body: { handle, bot: false } }); }
  me(key) { return this.request("GET", "/v1/me", { token: key }); }
  /** The account's games: in progress first (those on its turn first), then finished ones. */
  myGames(key) { return this.request("GET", "/v1/me/games?limit=10", { token: key }); }
  /** Change the account's settings (`analyse_rated`, `challenges_from`, …): the account. */
  updateMe(key, body) { return this.request("PATCH", "/v1/me", { token: key, body }); }
  /** A page of the account's mistakes in its analysed games, newest game first;
   * `cursor`: the previous page's `next_cursor`. */
  myMistakes(key, cursor = null) {
    const after = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    return this.request("GET", `/v1/me/mistakes?limit=20${after}`, { token: key });
  }
  /** Check a move for the mistake at `version` of `gameId`: `correct`, `best`, `saves`. */
  answerMistake(key, gameId, version, move) {
    return this.request("POST", `/v1/me/mistakes/${enc(gameId)}/${version}`, { token: key, body: move });
  }
  challenges(key) { return this.request("GET", "/v1/challenges", { token: key }); }
  challenge(key, body) { return this.request("POST", "/v1/challenges", { token: key, body }); }
  accept(key, id) { return this.request("POST", `/v1/challenges/${enc(id)}/accept`, { token: key }); }
  decline(key, id) { return this.request("POST", `/v1/challenges/${enc(id)}/decline`, { token: key }); }
  cancel(key, id) { return this.request("POST", `/v1/challenges/${enc(id)}/cancel`, { token: key }); }

  /**
   * Follow the account's stream of notes (`challenge`, `game_started`, `your_turn`, …):
   * `onNote(note)` for each note after `after`, once, across reconnections (each with a
   * new ticket, as for a game). `onRefused(problem)` when the key itself is refused (a
   * closed account, a replaced key): the stream stops then. Returns a function that stops.
   */
  followAccount(key, { onNote, onRefused, after = 0 }) {
    const ticket = () => this.request("POST", "/v1/me/stream-tickets", { token: key });
    return this.#follow("/v1/me/stream", ticket, { onEvent: onNote, onRefused, after });
  }

  // --- ratings (docs/ratings.md): public reads, no key needed --------------------------

  /** An account's (or a reference bot's) profile: its rating in every preset. */
  profile(handle) { return this.request("GET", `/v1/accounts/${enc(handle)}`); }
  /** The rating after each rated game in `preset`, oldest first, a page from `start`. */
  ratingHistory(handle, preset, start = 0, limit = 500) {
    return this.request("GET", `/v1/accounts/${enc(handle)}/ratings/${enc(preset)}?start=${start}&limit=${limit}`);
  }
  /** A page of the preset's board of humans (`bot` false) or of bots, best first. */
  leaderboard(preset, bot, start = 0, limit = 50) {
    return this.request("GET", `/v1/leaderboards/${enc(preset)}?bot=${bot}&start=${start}&limit=${limit}`);
  }
  /** The preset's bot ladder: its members by rating and its games in play, to watch. */
  ladder(preset) { return this.request("GET", `/v1/ladder/${enc(preset)}`); }

  // --- tournaments (docs/tournaments.md): public reads, no key needed -------------------

  /** A tournament: its status, entrants, rounds (tables and byes) and live standings. */
  tournament(id) { return this.request("GET", `/v1/tournaments/${enc(id)}`); }
  /** A page of the tournaments of `status` (`open`, `running`, `finished`), newest first;
   * `cursor`: the previous page's `next_cursor`. */
  tournaments(status, cursor = null) {
    const after = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    return this.request("GET", `/v1/tournaments?status=${encodeURIComponent(status)}${after}`);
  }

  #follow(path, ticket, { onEvent, onView, onEnd, onAnalysis, onRefused, after }) {
    let source = null;
    let stopped = false;
    let timer = null;
    const open = async () => {
      if (stopped) return;
      let query = `after=${after}`;
      if (ticket) {
        try {
          query += `&ticket=${encodeURIComponent((await ticket()).ticket)}`;
        } catch (e) {
          if (onRefused && e instanceof Problem && e.status === 401) { stopped = true; onRefused(e); return; }
          timer = setTimeout(open, 1000);
          return;
        }
      }
      if (stopped) return;
      source = new EventSource(`${this.base}${path}?${query}`);
      source.addEventListener("event", (e) => {
        after = Number(e.lastEventId);
        onEvent(JSON.parse(e.data));
      });
      if (onView) source.addEventListener("view", (e) => onView(JSON.parse(e.data)));
      if (onAnalysis) source.addEventListener("analysis", (e) => onAnalysis(JSON.parse(e.data)));
      source.addEventListener("end", (e) => {
        source.close();
        const { reason, retry_ms: retry } = JSON.parse(e.data);
        if (reason === "finished") { if (onEnd) onEnd(); return; }
        timer = setTimeout(open, retry);
      });
      source.onerror = () => {
        source.close();
        timer = setTimeout(open, 1000);
      };
    };
    open();
    return () => { stopped = true; clearTimeout(timer); if (source) source.close(); };
  }
}

function enc(part) { return encodeURIComponent(part); }

/** A random key: crypto.randomUUID() exists only on https (and localhost) pages, while
 * getRandomValues works on any page, such as one served over http on a LAN. */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
