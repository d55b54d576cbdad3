/** @module The state's and the transcript's operations: read, patch, page through messages, the environment's frame. */

import * as z from "zod";
import { episodeEnvironment } from "../../environment/episode-tools";
import { contextOf } from "../../environment/hook-calls";
import { callHookSync } from "../../environment/hook-failure";
import { RoostError } from "../../errors";
import { type JsonObject, type JsonValue, utf8Length } from "../../json";
import {
  CursorSchema,
  FrameResponseSchema,
  MaxBytesSchema,
  MessagesResponseSchema,
  READ_BYTES,
  ReadBudget,
  StatePatchRequestSchema,
  StatePatchResponseSchema,
  StateResponseSchema,
  truncatedField
} from "../../protocol";
import { viewOf } from "../../protocol/agents";
import { HANDLERS } from "../../state/handlers";
import { defineOperation } from "./define";
import { offsetOf } from "./paging";
import { statePage, stateToRead } from "./state-page";

export const readState = defineOperation({
  input: () =>
    z.object({
      cursor: CursorSchema().optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: StateResponseSchema,
  scope: "observe",
  agent: "shared",
  mutates: false,
  events: [],
  handle: (rt, q) =>
    rt.read((parts, environment, row) => {
      const budget = new ReadBudget(q.max_bytes);
      const page = statePage(
        stateToRead(parts.state, environment, row),
        environment.state.keys(),
        offsetOf(q.cursor),
        budget
      );
      return {
        state: page.values,
        ...(page.next === undefined ? {} : { next_cursor: String(page.next) }),
        ...truncatedField(budget),
        ...(row.episode === 0 ? { before_first_reset: true as const } : {})
      };
    })
});

export const patchState = defineOperation({
  input: StatePatchRequestSchema,
  output: StatePatchResponseSchema,
  scope: "control",
  mutates: true,
  idempotency: { scope: () => "state", hashed: (input) => input },
  events: ["state.changed"],
  handle: (rt, body, idem) =>
    rt.commits.mutate("edit", idem, async (m) => {
      if (body.key === "messages") {
        throw new RoostError(
          "invalid_request",
          "messages is the transcript: it grows by steps, not by PATCH.",
          { field: "key" }
        );
      }
      const handler = body.handler ? HANDLERS[body.handler] : undefined;
      const value = m.parts.state.set(
        body.key,
        body.value,
        handler ? { handler } : {}
      );
      return { key: body.key, value: value as JsonValue };
    })
});

export const messages = defineOperation({
  input: () =>
    z.object({
      cursor: CursorSchema().optional(),
      limit: z.number().int().positive().optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: MessagesResponseSchema,
  scope: "observe",
  agent: "view",
  mutates: false,
  events: [],
  handle: (rt, q, _idem, grant) =>
    rt.readTranscript((transcript) => {
      const offset = offsetOf(q.cursor);
      const budget = new ReadBudget(q.max_bytes);
      const list = transcript.page(offset, q.limit ?? 100, budget);
      const next = offset + list.length;
      const total = transcript.count();
      return {
        // The cursor counts the transcript, so an agent's page may hold
        // fewer messages than were read for it.
        messages: grant?.agent === undefined ? list : viewOf(list, grant.agent),
        total,
        ...(next < total ? { next_cursor: String(next) } : {}),
        ...truncatedField(budget)
      };
    })
});

/**
 * What the environment shows of itself: its own `frame`, or state and info.
 * The default frame holds what the budget allows of the state and of the
 * store's keys (`truncated` when it could not hold all: read the rest from
 * `/state` and `/environment/keys`); an environment's own frame past the
 * read maximum is refused rather than sent.
 */
export const frame = defineOperation({
  input: () => z.object({ max_bytes: MaxBytesSchema().optional() }),
  output: FrameResponseSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: (rt, q) =>
    rt.read((parts, environment, row) => {
      if (environment.frame) {
        const own = environment.frame;
        const f = callHookSync(environment.name, "frame", () =>
          own(contextOf(parts, row.episodeTask, {}))
        );
        const out = { state: f.state, info: (f.info ?? {}) as JsonObject };
        const bytes = utf8Length(JSON.stringify(out));
        if (bytes > READ_BYTES.max) {
          throw new RoostError(
            "payload_too_large",
            `This environment's frame is ${bytes} bytes, over the ${READ_BYTES.max} a read may answer; its frame() should show less.`,
            { limit: "readBytes", max: READ_BYTES.max, bytes }
          );
        }
        return out;
      }
      const budget = new ReadBudget(q.max_bytes);
      const state = statePage(parts.state, environment.state.keys(), 0, budget);
      const keys = parts.environment.keyPage({
        maxBytes: Math.max(1, budget.left)
      });
      const cut = state.next !== undefined || keys.nextCursor !== undefined;
      return {
        state: state.values,
        info: {
          environment: environment.name,
          episode: row.episode,
          steps: row.steps,
          tool_names: [
            ...episodeEnvironment(environment, row.episodeTools).tools.keys()
          ],
          store_keys: keys.keys as unknown as JsonValue
        },
        ...(cut ? { truncated: true as const } : {})
      };
    })
});
