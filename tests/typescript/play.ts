/**
 * A typed client of the Three-Thirteen API, as a frontend would write one: the types come
 * from openapi/openapi.json (openapi-typescript), the calls go through openapi-fetch.
 * tests/typescript/test_typed_client.py compiles it with `tsc --noEmit` (strict): if the
 * document types a field wrongly (an optional field as required, an event as `unknown`,
 * a problem `code` as any string), this file stops compiling.
 *
 * It creates a game, follows its NDJSON stream, and plays the first legal action of each
 * of its seats' turns, switching on the action's and the event's `type`. Every union it
 * reads narrows on its discriminator without a cast or a `!`: a stream line (typed by the
 * stream operation itself) on `type`, a view on `status` (a finished one has its winners
 * and seed), a seek on `status` (a matched one has its game and seat), a new seat on
 * `kind` (a named one has its token); and a seat's own view (what an action answers)
 * has `you`. The `@ts-expect-error` lines are bodies the server refuses: the types
 * refuse them too.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type SeatView = Schemas["SeatView"];
export type Seek = Schemas["Seek"];
export type PlayerSpec = Schemas["PlayerSpec"];
/** One line of the NDJSON stream, as the stream operation documents its response. */
type StreamOperation = paths["/v1/games/{game_id}/stream"]["get"];
type StreamContent = StreamOperation["responses"][200]["content"];
export type StreamLine = StreamContent["application/x-ndjson"][number];
/** One Server-Sent Event of the same stream. */
export type StreamSseEvent = StreamContent["text/event-stream"];
export type Action = GameView["legal_actions"][number];
export type GameEvent = Schemas["EventsResponse"]["events"][number];
export type StreamMessage = Schemas["StreamMessage"];
export type Problem = Schemas["Problem"];
export type ProblemCode = Problem["code"];

/** What to do with a problem, by its code: the switch is exhaustive over the enum. */
export function advice(problem: Problem): string {
  const code: ProblemCode = problem.code;
  switch (code) {
    case "version_conflict":
      return `stale: the game is at version ${problem.current_version ?? "?"}, re-read it`;
    case "not_your_turn":
      return `wait: seat ${problem.current_seat ?? "?"} is to play`;
    case "invalid_cursor":
      return `resume from at most ${problem.newest ?? 0}`;
    case "seats_open":
      return `waiting for seats ${(problem.open_seats ?? []).join(", ")}`;
    case "rate_limited":
    case "too_many_waits":
    case "storage_unavailable":
      return "retry after Retry-After";
    default:
      return `${code}: ${problem.detail}`;
  }
}

/** An action's label, reading each kind's own fields (narrowed on `type`). */
export function describe(action: Action): string {
  switch (action.type) {
    case "draw":
      return `draw from the ${action.source === "stock" ? "stock" : "discard pile"}`;
    case "discard":
      return `discard ${action.card}`;
    case "go_out": {
      const melds: string[][] = action.melds ?? [];
      return `go out discarding ${action.discard} with ${melds.length} melds`;
    }
    case "claim_victory":
      return `claim the game from seat ${action.against}`;
  }
}

/** One line of commentary per event, reading each event's typed fields. */
export function narrate(event: GameEvent): string {
  switch (event.type) {
    case "round_started":
      return `round ${event.round}: ${event.hand_size} cards, ${event.wild_rank}s wild` +
        (event.hand ? `, you hold ${event.hand.join(" ")}` : "");
    case "draw":
      return `seat ${event.seat} draws from ${event.source}${event.card ? `: ${event.card}` : ""}`;
    case "discard":
      return `seat ${event.seat} discards ${event.card}`;
    case "went_out":
      return `seat ${event.seat} goes out with ${event.melds.length} melds`;
    case "laid_down":
      return `seat ${event.seat} lays ${event.melds.length} melds, ${event.layoffs.length} lay-offs`;
    case "reshuffled":
      return `the discards become a stock of ${event.stock_count}`;
    case "round_ended":
      return `round ${event.number} scored: ` +
        event.results.map((r) => `${r.seat}: ${r.score}`).join(", ");
    case "game_finished":
      return `winners ${event.winners.join(", ")}; the seed was ${event.seed}`;
    case "seat_claimed":
      return `${event.name} takes seat ${event.seat}`;
    case "seat_resigned":
      return `seat ${event.seat} resigns; ${event.played_by} plays on`;
    case "turn_timed_out":
      return `seat ${event.seat} ran out of time (${event.timeouts})` +
        (event.away ? `, away: ${event.played_by} plays` : "");
    case "seat_back":
      return `seat ${event.seat} is back`;
    case "rematch_asked":
      return `seat ${event.seat} asks for a rematch; waiting for ${event.waiting_for.join(", ")}`;
    case "rematch_started":
      return `the rematch is game ${event.game_id}`;
    case "game_aborted":
      return `seat ${event.seat} aborts the game: no result`;
    case "victory_claimed":
      return `seat ${event.seat} claims the game; seat ${event.against} resigns`;
  }
}

/** A seat spec is a name (null: open) or a bot, exactly one: what the server accepts. */
export const seats: PlayerSpec[] = [{ name: "ann" }, { name: null }, { bot: "greedy" }];
// @ts-expect-error neither a name nor a bot (the server answers 422)
export const noSeat: PlayerSpec = {};
// Both a name and a bot, or an open seat that is also a bot, are refused by the document
// (each variant says `not: {}` of the other fields) and by the server (422), but not by
// the types: openapi-typescript reads `not` as nothing, and `enum: []`, which it would
// read as `never`, stops openapi-python-client (tests/api/test_document_two_way.py
// holds the document to refusing them).

/** The end of a game, read from a finished view: no `!` on winners, seed or salt. */
export function verdict(view: GameView): string {
  if (view.status !== "finished") return `round ${view.round.number} of ${view.round.rounds}`;
  const winners: number[] = view.winners;
  const seed: string = view.seed;
  const salt: string = view.seed_salt;
  return `won by ${winners.join(", ")} (${view.finish_reason}); seed ${seed}, salt ${salt}`;
}

/** Your hand in a view an action answered: a seat's own view always has `you`. */
export function hand(view: SeatView): string[] {
  return view.you.hand;
}

/** Matchmaking: a matched seek has its game and seat, no null check needed. */
export async function seekGame(baseUrl: string, name: string): Promise<string> {
  const client = createClient<paths>({ baseUrl });
  const opened = await client.POST("/v1/seeks", {
    params: { query: { timeout: 30 } },
    body: { players: 2, name, rules: "classic" },
  });
  if (opened.error) throw new Error(advice(opened.error));
  const seek = opened.data; // a `Seek`: waiting or matched
  if (seek.status === "waiting") return `waiting until ${seek.expires}`;
  const gameId: string = seek.game_id;
  const seat: number = seek.seat;
  return `seat ${seat} of ${gameId}, played with ${seek.token}`;
}

/** What one Server-Sent Event carries, by its `event` (its `data` is that JSON). */
export function sseKind(message: StreamSseEvent): string {
  switch (message.event) {
    case "event":
      return `event ${message.id ?? "?"}`;
    case "view":
      return "view";
    case "analysis":
      return "analysis";
    case "end":
      return `end, retry in ${message.retry ?? "?"} ms`;
  }
}

/** The NDJSON stream's messages, one per line (empty lines are heartbeats). */
export async function* streamMessages(
  baseUrl: string, gameId: string, token?: string,
): AsyncGenerator<StreamLine> {
  const headers: Record<string, string> = { Accept: "application/x-ndjson" };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${baseUrl}/v1/games/${gameId}/stream`, { headers });
  if (!response.ok || response.body === null) {
    const problem = (await response.json()) as Problem;
    throw new Error(advice(problem));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) {
        const message: StreamLine = JSON.parse(line);
        yield message;
      }
      newline = buffered.indexOf("\n");
    }
  }
}

/** Creates a two-seat game and plays it out over the API; returns the commentary. */
export async function playGame(baseUrl: string): Promise<string[]> {
  const client = createClient<paths>({ baseUrl });
  const presets = await client.GET("/v1/rules/presets");
  const classic = presets.data?.presets["classic"];
  // `rules` and `seed` are optional: a body without them compiles
  const created = await client.POST("/v1/games", {
    body: { players: [{ name: "ann" }, { name: "bob" }] },
  });
  if (created.error) throw new Error(advice(created.error));
  const gameId: string = created.data.game_id;
  // a named seat's token is a string once its kind is checked
  const tokens = created.data.seats.map((s) => (s.kind === "human" ? s.token : null));
  const lines: string[] = [`classic has ${classic?.hand_sizes.length ?? "?"} rounds`];

  for await (const message of streamMessages(baseUrl, gameId)) {
    if (message.type === "event") {
      lines.push(narrate(message.event));
    } else if (message.type === "end") {
      if (message.reason === "finished") break;
      throw new Error(`stream ended (${message.reason}); retry in ${message.retry_ms} ms`);
    } else if (message.type === "analysis") {
      lines.push(`analysis ${message.status}, ${Math.round(message.progress * 100)}%`);
    } else {
      const view: GameView = message.view;
      if (view.status === "finished") {
        lines.push(verdict(view));
        break;
      }
      const seat = view.round.current_seat;
      if (seat === null) break;
      const token = tokens[seat];
      if (token === undefined || token === null) throw new Error(`seat ${seat} is open`);
      await playTurn(client, gameId, token, view.version, lines);
    }
  }
  return lines;
}

type Client = ReturnType<typeof createClient<paths>>;

/** The seat's whole turn: read its view, send its first legal action until it is done. */
async function playTurn(
  client: Client, gameId: string, token: string, version: number, lines: string[],
): Promise<void> {
  const auth = { Authorization: `Bearer ${token}` };
  const seen = await client.GET("/v1/games/{game_id}", {
    params: { path: { game_id: gameId } },
    headers: auth, // the bearer is the security scheme's, not a documented header parameter
  });
  if (seen.error) throw new Error(advice(seen.error));
  let view: GameView = seen.data;
  while (view.legal_actions.length > 0) {
    const action = view.legal_actions.find((a) => a.type === "go_out")
      ?? view.legal_actions[0];
    if (action === undefined) return;
    lines.push(describe(action));
    const acted = await client.POST("/v1/games/{game_id}/actions", {
      params: {
        path: { game_id: gameId },
        header: { "If-Match": `"${view.version}"`, "Idempotency-Key": crypto.randomUUID() },
      },
      headers: auth,
      body: action,
    });
    if (acted.error) {
      if (acted.error.code === "version_conflict" || acted.error.code === "not_your_turn") return;
      throw new Error(advice(acted.error));
    }
    const mine: SeatView = acted.data;
    lines.push(`holding ${hand(mine).join(" ")}`);
    view = mine;
    if (view.version <= version) throw new Error("the version did not move");
  }
}
