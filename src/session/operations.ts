/** @module Store, state and transcript operations of the routes, over a session's runtime. */

import { RoostError } from "../errors";
import type { JsonObject, JsonValue } from "../json";
import type {
  FrameResponse,
  MessagesResponse,
  StateResponse,
  StoreEntriesResponse,
  StoreEntryResponse,
  StorePageResponse
} from "../protocol";
import { HANDLERS, type HandlerName } from "../state/handlers";
import type { SessionRuntime } from "./runtime";

export interface StoreQuery {
  tool?: string;
  name?: string;
  index?: number;
  cursor?: string;
  limit?: number;
}

const offsetOf = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  const n = Number(cursor);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RoostError(
      "invalid_request",
      "Invalid cursor: pass back the next_cursor of a previous page.",
      { field: "cursor" }
    );
  }
  return n;
};

export const readStore = (
  rt: SessionRuntime,
  q: StoreQuery
): StorePageResponse | StoreEntriesResponse | StoreEntryResponse =>
  rt.read((parts) => {
    const store = parts.environment;
    if (q.tool === undefined && q.name === undefined) {
      const page = store.page({
        ...(q.cursor ? { cursor: q.cursor } : {}),
        ...(q.limit ? { limit: q.limit } : {})
      });
      return {
        store: page.store,
        ...(page.nextCursor ? { next_cursor: page.nextCursor } : {})
      };
    }
    if (q.tool === undefined || q.name === undefined) {
      throw new RoostError(
        "invalid_request",
        "Give both tool and name to read one key.",
        { field: q.tool === undefined ? "tool" : "name" }
      );
    }
    const { tool, name } = q;
    if (q.index !== undefined)
      return { entry: store.locate(tool, name, q.index) };
    const offset = offsetOf(q.cursor);
    const { entries, total } = store.slice(tool, name, offset, q.limit ?? 100);
    const next = offset + entries.length;
    return { entries, ...(next < total ? { next_cursor: String(next) } : {}) };
  });

export const readState = (rt: SessionRuntime): StateResponse =>
  rt.read((parts) => ({ state: parts.state.toJSON() }));

export const readMessages = (
  rt: SessionRuntime,
  q: { cursor?: string; limit?: number }
): MessagesResponse =>
  rt.readTranscript((transcript) => {
    const offset = offsetOf(q.cursor);
    const messages = transcript.list(offset, q.limit ?? 100);
    const next = offset + messages.length;
    return {
      messages,
      ...(next < transcript.count() ? { next_cursor: String(next) } : {})
    };
  });

export const readFrame = (rt: SessionRuntime): FrameResponse =>
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
        tool_names: [...env.tools.keys()],
        store_keys: parts.environment.keys() as unknown as JsonValue
      }
    };
  });

export const patchState = (
  rt: SessionRuntime,
  body: { key: string; value: JsonValue; handler?: HandlerName },
  idem?: Parameters<SessionRuntime["edit"]>[1]
): Promise<{ key: string; value: JsonValue }> =>
  rt.edit((parts) => {
    if (body.key === "messages") {
      throw new RoostError(
        "invalid_request",
        "messages is the transcript: it grows by steps, not by PATCH.",
        { field: "key" }
      );
    }
    const handler = body.handler ? HANDLERS[body.handler] : undefined;
    const value = parts.state.set(
      body.key as never,
      body.value,
      handler ? { handler } : {}
    );
    return { key: body.key, value: value as JsonValue };
  }, idem);
