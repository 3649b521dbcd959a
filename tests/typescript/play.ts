/**
 * A typed client of the Three-Thirteen API, as a frontend would write one: the types come
 * from openapi/openapi.json (openapi-typescript), the calls go through openapi-fetch.
 * tests/typescript/test_typed_client.py compiles it with `tsc --noEmit` (strict): if the
 * document types a field wrongly (an optional field as required, an event as `unknown`,
 * a problem `code` as any string), this file stops compiling.
 *
 * It creates a game, follows its NDJSON stream, and plays the first legal action of each
 * of its seats' turns, switching on the action's and the event's `type`.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
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
  }
}

/** The NDJSON stream's messages, one per line (empty lines are heartbeats). */
export async function* streamMessages(
  baseUrl: string, gameId: string, token?: string,
): AsyncGenerator<StreamMessage> {
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
      if (line) yield JSON.parse(line) as StreamMessage;
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
  const tokens = created.data.seats.map((s) => s.token);
  const lines: string[] = [`classic has ${classic?.hand_sizes.length ?? "?"} rounds`];

  for await (const message of streamMessages(baseUrl, gameId)) {
    if (message.type === "event") {
      lines.push(narrate(message.event));
    } else if (message.type === "end") {
      if (message.reason === "finished") break;
      throw new Error(`stream ended (${message.reason}); retry in ${message.retry_ms} ms`);
    } else {
      const view: GameView = message.view;
      const seat = view.round.current_seat;
      if (view.status === "finished" || seat === null) break;
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
    view = acted.data;
    if (view.version <= version) throw new Error("the version did not move");
  }
}
