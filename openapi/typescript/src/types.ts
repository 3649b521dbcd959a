/**
 * Names for the document's types, so that a client reads `GameView` rather than
 * `components["schemas"]["GameView"]`. Every one is an alias of a generated type
 * (src/generated/api.ts, made by openapi-typescript from openapi/openapi.json): nothing
 * here re-types the API by hand, so a change of the document changes these at once.
 */
import type { components, operations, paths } from "./generated/api.js";

export type { components, operations, paths };

type Schemas = components["schemas"];

/** A game as anyone sees it; narrow on `status` (a finished one has `winners`, `seed`…). */
export type GameView = Schemas["GameView"];
/** What an action answers: a seat's own view, whose `you` is never null. */
export type SeatView = Schemas["SeatView"];
/** One of the actions a view's `legal_actions` lists, each a valid action body. */
export type LegalAction = GameView["legal_actions"][number];
/** Any action body `POST …/actions` takes: a legal action, `resign` or `back`. */
export type Action = operations["act"]["requestBody"]["content"]["application/json"];
/** Your seat and hand in a view (null in a spectator's). */
export type You = Schemas["You"];
/** A seat spec of a new game: a name (null: open) or a bot, exactly one. */
export type PlayerSpec = Schemas["PlayerSpec"];
/** A problem+json body; `code` is the enum of every code the service sends. */
export type Problem = Schemas["Problem"];
export type ProblemCode = Problem["code"];

/** The media types of a stream operation's 200 answer, as the document gives them. */
type StreamContent<Op extends "streamGame" | "streamMe"> =
  operations[Op]["responses"][200]["content"];

/**
 * One NDJSON line of a game's stream (`StreamMessage`): an `event`, your `view`, a finished
 * game's `analysis` progress, or the
 * last `end`. Taken from the stream operation itself: the document types its NDJSON
 * answer as an array of these (OpenAPI 3.2's reading of a sequential media type).
 */
export type GameStreamMessage = StreamContent<"streamGame">["application/x-ndjson"][number];
/** One NDJSON line of an account's stream (`/v1/me/stream`): a note, or the last `end`. */
export type AccountStreamMessage = StreamContent<"streamMe">["application/x-ndjson"][number];
/** One event of a game, narrowed on `type` (`draw`, `discard`, `round_ended`…). */
export type GameEvent = Extract<GameStreamMessage, { type: "event" }>["event"];
/** One note of an account (`challenge`, `your_turn`, `game_finished`…). */
export type AccountNote = Schemas["AccountNote"];
/** The last message of every stream: why it ended and when to come back. */
export type StreamEnd = Schemas["StreamEnd"];
export type StreamEndMessage = Schemas["StreamEndMessage"];

/** One Server-Sent Event of each stream, as the document gives it (`data` a JSON string). */
export type GameSseEvent = StreamContent<"streamGame">["text/event-stream"];
export type AccountSseEvent = StreamContent<"streamMe">["text/event-stream"];
