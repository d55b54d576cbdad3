/** @module The state's and the transcript's operations: read, patch, page through messages, the environment's frame. */

import * as z from "zod";
import { episodeEnvironment } from "../../environment/episode-tools";
import { RoostError } from "../../errors";
import type { JsonObject, JsonValue } from "../../json";
import {
  CursorSchema,
  FrameResponseSchema,
  MessagesResponseSchema,
  StatePatchRequestSchema,
  StatePatchResponseSchema,
  StateResponseSchema
} from "../../protocol";
import { HANDLERS } from "../../state/handlers";
import { defineOperation } from "./define";
import { offsetOf } from "./paging";

export const readState = defineOperation({
  input: z.object({}),
  output: StateResponseSchema,
  mutates: false,
  events: [],
  run: (rt) => rt.read((parts) => ({ state: parts.state.toJSON() }))
});

export const patchState = defineOperation({
  input: StatePatchRequestSchema,
  output: StatePatchResponseSchema,
  mutates: true,
  idempotency: { scope: () => "state", hashed: (input) => input },
  events: ["state.changed"],
  run: (rt, body, idem) =>
    rt.commits.run("edit", idem, async (m) => {
      if (body.key === "messages") {
        throw new RoostError(
          "invalid_request",
          "messages is the transcript: it grows by steps, not by PATCH.",
          { field: "key" }
        );
      }
      const handler = body.handler ? HANDLERS[body.handler] : undefined;
      const value = m.parts.state.set(
        body.key as never,
        body.value,
        handler ? { handler } : {}
      );
      return { key: body.key, value: value as JsonValue };
    })
});

export const messages = defineOperation({
  input: z.object({
    cursor: CursorSchema.optional(),
    limit: z.number().int().positive().optional()
  }),
  output: MessagesResponseSchema,
  mutates: false,
  events: [],
  run: (rt, q) =>
    rt.readTranscript((transcript) => {
      const offset = offsetOf(q.cursor);
      const list = transcript.list(offset, q.limit ?? 100);
      const next = offset + list.length;
      return {
        messages: list,
        ...(next < transcript.count() ? { next_cursor: String(next) } : {})
      };
    })
});

/** What the environment shows of itself: its own `frame`, or state and info. */
export const frame = defineOperation({
  input: z.object({}),
  output: FrameResponseSchema,
  mutates: false,
  events: [],
  run: (rt) =>
    rt.read((parts, env, row) => {
      if (env.frame) {
        const f = env.frame({
          task: row.episodeTask,
          ...parts,
          emit: () => {}
        } as never);
        return { state: f.state, info: (f.info ?? {}) as JsonObject };
      }
      return {
        state: parts.state.toJSON(),
        info: {
          environment: env.name,
          episode: row.episode,
          steps: row.steps,
          tool_names: [
            ...episodeEnvironment(env, row.episodeTools).tools.keys()
          ],
          store_keys: parts.environment.keys() as unknown as JsonValue
        }
      };
    })
});
