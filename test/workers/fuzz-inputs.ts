/**
 * @module The fuzz's inputs: a fixed seed and run count, a valid body per
 * route to mutate, hostile keys and values, a route's path filled in for a
 * session, and the one error shape every refusal must have.
 */

import fc from "fast-check";
import { expect } from "vitest";
import { ERROR_STATUS } from "../../src/errors";
import { action, type TestSession } from "./helpers";

export const SEED = 20261122;
export const RUNS = 40;

/** A valid body per route, the starting point for mutations. */
export const VALID: Record<string, unknown> = {
  "POST /v1/sessions": { environment: "lab" },
  "POST /v1/sessions/{id}/reset": { task: { label: "fuzz" } },
  "POST /v1/sessions/{id}/fork": { count: 2 },
  "POST /v1/sessions/{id}/tokens": { scope: "observe", ttl_s: 60 },
  "POST /v1/sessions/{id}/tokens/revoke": { scope: "observe" },
  "POST /v1/sessions/{id}/step": action("bump"),
  // The lab registers no rubrics: a 404 (or 403 to its control token),
  // which the fuzz checks like any refusal.
  "POST /v1/sessions/{id}/rescore": { rubric: "rubric" },
  // No upstream is configured here: past validation, a 503 that names
  // the variable to set, which the fuzz checks like any refusal.
  "POST /v1/sessions/{id}/model/v1/chat/completions": {
    model: "m",
    messages: [{ role: "user", content: "hi" }]
  },
  "POST /v1/sessions/{id}/tools/{tool}": { arguments: { key: "k" } },
  "POST /v1/sessions/{id}/environment/{tool}/{name}": {
    objects: [{ a: 1 }],
    metadata: { m: 1 }
  },
  "PUT /v1/sessions/{id}/environment/{tool}/{name}": { objects: [{ a: 2 }] },
  "PUT /v1/sessions/{id}/environment/{tool}/{name}/{index}": {
    objects: [{ a: 3 }]
  },
  "PATCH /v1/sessions/{id}/state": { key: "count", value: 1 },
  "POST /v1/sessions/{id}/runs": { prompt: "hello" },
  // What useChat's transport sends (lab has no tree: always refused).
  "POST /v1/sessions/{id}/chat": {
    id: "chat-1",
    trigger: "submit-message",
    messages: [
      { id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] }
    ]
  },
  "POST /v1/sessions/{id}/mcp": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "bump", arguments: { key: "k" } }
  },
  "POST /v1/environments/{name}/mcp": {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18" }
  },
  "POST /v1/environments/{name}/aviary/start": { task_idx: null },
  "POST /v1/environments/{name}/aviary/reset": { env_id: "x.y" },
  "POST /v1/environments/{name}/aviary/step": {
    env_id: "x.y",
    action: {
      role: "assistant",
      content: null,
      function_call: null,
      tool_calls: [
        {
          id: "c",
          type: "function",
          function: { name: "bump", arguments: "{}" }
        }
      ]
    }
  },
  "POST /v1/environments/{name}/aviary/close": { env_id: "x.y" },
  "POST /v1/environments/{name}/aviary/close_old_envs": { last_used: 3600 },
  "POST /v1/environments/{name}/splits/{split}/aviary/start": { task_idx: 0 },
  "POST /v1/environments/{name}/splits/{split}/aviary/reset": { env_id: "x.y" },
  "POST /v1/environments/{name}/splits/{split}/aviary/step": {
    env_id: "x.y",
    action: { role: "assistant", content: "no tools" }
  },
  "POST /v1/environments/{name}/splits/{split}/aviary/close": { env_id: "x.y" },
  "POST /v1/environments/{name}/splits/{split}/aviary/close_old_envs": {
    last_used: 3600
  },
  "POST /v1/environments/{name}/openenv/connect": { keep: false },
  "POST /v1/environments/{name}/openenv/reset": { episode_id: "fuzz" },
  "POST /v1/environments/{name}/openenv/step": {
    action: { type: "call_tool", tool_name: "bump", arguments: {} }
  },
  "POST /v1/environments/{name}/openenv/mcp": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list"
  },
  "POST /v1/environments/{name}/openenv/c/{credential}/reset": {
    episode_id: "fuzz"
  },
  "POST /v1/environments/{name}/openenv/c/{credential}/step": {
    action: { type: "call_tool", tool_name: "bump", arguments: {} }
  },
  "POST /v1/environments/{name}/openenv/c/{credential}/mcp": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list"
  },
  "POST /v1/environments/{name}/openenv/s/{session}/reset": {
    episode_id: "fuzz"
  },
  "POST /v1/environments/{name}/openenv/s/{session}/step": {
    action: { type: "call_tool", tool_name: "bump", arguments: {} }
  },
  "POST /v1/environments/{name}/openenv/s/{session}/mcp": {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list"
  },
  // The curriculum's draw (lab has no dataset: always refused, never a 500).
  "POST /v1/environments/{name}/task-stats/sample": {
    group_size: 4,
    count: 2,
    seed: 1
  },
  // OpenEnv's task API under each base ({env_name} is lab).
  ...Object.fromEntries(
    ["", "/c/{credential}", "/s/{session}"].flatMap((base) =>
      Object.entries({
        tasks: { split: "default" },
        num_tasks: { split: "default" },
        task: { split: "default", index: 0 },
        task_range: { split: "default", start: 0, stop: 2 }
      }).map(([route, body]) => [
        `POST /v1/environments/{name}/openenv${base}/{env_name}/${route}`,
        body
      ])
    )
  )
};

export const hostile = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "",
  "a/b",
  "..",
  "x".repeat(300)
);

/** Hostile strings as keys one level down, where objects are expected. */
export const nested = fc
  .tuple(hostile, fc.jsonValue())
  .map(([key, value]) =>
    JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}}`)
  );

/** Replaces, drops or adds one field of a valid body, hostile keys and values included. */
export const mutate = (valid: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.jsonValue(),
    fc
      .record({ key: fc.oneof(fc.string(), hostile), value: fc.jsonValue() })
      .map(({ key, value }) => {
        const copy = JSON.parse(JSON.stringify(valid)) as Record<
          string,
          unknown
        >;
        // An own property even for `__proto__`, so JSON.stringify sends it.
        Object.defineProperty(copy, key, {
          value,
          enumerable: true,
          writable: true,
          configurable: true
        });
        return copy;
      }),
    fc
      .record({
        value: fc.oneof(fc.jsonValue(), hostile, nested),
        pick: fc.nat()
      })
      .map(({ value, pick }) => {
        const copy = JSON.parse(JSON.stringify(valid)) as Record<
          string,
          unknown
        >;
        const keys = Object.keys(copy);
        if (keys.length > 0) copy[keys[pick % keys.length]!] = value;
        return copy;
      }),
    fc.constant(valid)
  );

export const pathOf = (
  path: string,
  s: TestSession,
  tool: string,
  name: string,
  index: string
) =>
  path
    .replace("{id}", s.session_id)
    .replace("{tool}", tool)
    // The environment MCP endpoint names an environment, not a result.
    .replace("/environments/{name}", "/environments/lab")
    .replace("{name}", name)
    .replace("{index}", index)
    .replace("{env_name}", "lab")
    // An OpenEnv base naming the session itself, so its routes reach it.
    .replace("{session}", `${s.session_id}.${s.token}`)
    // The environment named is lab, which has no splits: a 400, never a 500.
    .replace("{split}", "train");

export const expectErrorShape = async (res: Response) => {
  expect(res.status).not.toBe(500);
  if (res.status < 400) return;
  // The MCP endpoints' own errors are JSON-RPC; Roost's (auth, size) are not.
  const rpc = (await res.clone().json()) as {
    jsonrpc?: string;
    error?: { code?: unknown; message?: unknown };
  };
  if (rpc.jsonrpc === "2.0") {
    expect(typeof rpc.error?.code).toBe("number");
    expect(typeof rpc.error?.message).toBe("string");
    return;
  }
  const body = (await res.json()) as {
    error?: { code?: string; message?: string };
  };
  expect(typeof body.error?.message).toBe("string");
  const code = body.error?.code as keyof typeof ERROR_STATUS;
  expect(ERROR_STATUS[code]).toBe(res.status);
};
