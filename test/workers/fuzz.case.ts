import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/errors";
import {
  action,
  call,
  createSession,
  send,
  readable as snapshot,
  type TestSession
} from "./helpers";
import { ROUTE_TABLE } from "./tables";
import { type Frame, hasType, openSocket } from "./ws-helpers";

// Random and mutated input against every route of the table and every
// WebSocket frame type: never a 500, always the one error shape, and a
// rejected request never changes the session. Fixed seed, fixed runs.
const SEED = 20261122;
const RUNS = 40;

/** A valid body per route, the starting point for mutations. */
const VALID: Record<string, unknown> = {
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

const hostile = fc.constantFrom(
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
const nested = fc
  .tuple(hostile, fc.jsonValue())
  .map(([key, value]) =>
    JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}}`)
  );

/** Replaces, drops or adds one field of a valid body, hostile keys and values included. */
const mutate = (valid: unknown): fc.Arbitrary<unknown> =>
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

const pathOf = (
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

const expectErrorShape = async (res: Response) => {
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

export const fuzzRoutes = (
  pick: (key: string) => boolean,
  withQueries: boolean
): void => {
  describe("fuzzing the HTTP routes", { timeout: 120_000 }, () => {
    const bodyRoutes = ROUTE_TABLE().filter((r) => r.body);

    if (withQueries)
      it("covers every route with a body", () => {
        expect(bodyRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
          Object.keys(VALID).sort()
        );
      });

    for (const route of bodyRoutes) {
      const key = `${route.method} ${route.path}`;
      if (!pick(key)) continue;
      it(`never answers 500 and never changes the session on rejection: ${key}`, async () => {
        const s = await createSession({ environment: "lab" });
        await s.call("/reset", send("POST", {}));
        await s.call(
          "/environment/bump/results",
          send("POST", { objects: [{ seed: 1 }] })
        );
        let before = await snapshot(s);
        await fc.assert(
          fc.asyncProperty(
            mutate(VALID[key]),
            fc.oneof(fc.constantFrom("bump", "note", "results"), hostile),
            fc.constantFrom("0", "-1", "1", "x", "99999999999999999999"),
            async (body, name, index) => {
              const path = pathOf(
                route.path,
                s,
                route.path.includes("{tool}") && route.path.includes("/tools/")
                  ? name
                  : "bump",
                name,
                index
              );
              const res =
                route.auth === "session"
                  ? await s.call(
                      path.replace(`/v1/sessions/${s.session_id}`, ""),
                      {
                        method: route.method,
                        body: JSON.stringify(body),
                        headers: { "Content-Type": "application/json" }
                      }
                    )
                  : await call(path, {
                      method: route.method,
                      body: JSON.stringify(body),
                      headers: { "Content-Type": "application/json" }
                    });
              const status = res.status;
              if (status === 202) {
                // A run changes the session from the alarm: let it finish
                // before the next comparison.
                const { run_id } = (await res.clone().json()) as {
                  run_id: string;
                };
                await (await s.call(`/runs/${run_id}?wait=20`)).text();
              }
              await expectErrorShape(res.clone());
              await res.body?.cancel();
              if (route.auth !== "session") return;
              const after = await snapshot(s);
              if (status >= 400) expect(after).toBe(before);
              before = after;
            }
          ),
          { seed: SEED, numRuns: RUNS, endOnFailure: true }
        );
      });
    }

    if (withQueries)
      it("never answers 500 to random query strings", async () => {
        const s = await createSession({ environment: "lab" });
        await s.call("/reset", send("POST", {}));
        const queryRoutes = [
          "/environment",
          "/environment/keys",
          "/messages",
          "/events",
          "/state",
          "/frame",
          "/hidden"
        ];
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...queryRoutes),
            fc.dictionary(
              fc.constantFrom(
                "tool",
                "name",
                "index",
                "cursor",
                "limit",
                "after",
                "max_bytes",
                "__proto__"
              ),
              fc.oneof(fc.string(), fc.integer().map(String), hostile)
            ),
            async (route, query) => {
              const qs = new URLSearchParams(query).toString();
              const res = await s.call(`${route}?${qs}`);
              await expectErrorShape(res);
            }
          ),
          { seed: SEED, numRuns: RUNS * 3, endOnFailure: true }
        );
      });
  });
};

export const fuzzSocket = (): void => {
  describe("fuzzing the WebSocket", { timeout: 120_000 }, () => {
    it("answers every random frame in band, keeps the socket open and changes nothing on rejection", async () => {
      const s = await createSession({ environment: "lab" });
      await s.call("/reset", send("POST", {}));
      const sock = await openSocket(s.session_id, s.token);
      await sock.until(hasType("session.snapshot"));
      const frameTypes = [
        "step",
        "reset",
        "call",
        "cancel",
        "resume",
        "ping",
        "ack",
        "nope"
      ];
      let n = 0;
      let before = await snapshot(s);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...frameTypes),
          fc.dictionary(
            fc.oneof(
              fc.constantFrom(
                "id",
                "action",
                "task",
                "tool",
                "arguments",
                "after",
                "seq",
                "run_id",
                "idempotency_key"
              ),
              hostile
            ),
            fc.jsonValue()
          ),
          fc.boolean(),
          async (type, fields, raw) => {
            const id = `f${++n}`;
            const text = raw
              ? JSON.stringify(fields).slice(0, 7)
              : JSON.stringify({ ...fields, type, id });
            const seen = sock.frames.length;
            sock.send(text);
            // A call to a missing tool goes through the same queue and changes
            // nothing: once it is answered, the fuzzed frame was handled.
            const probe = `probe${n}`;
            sock.send({ type: "call", id: probe, tool: "missing_tool" });
            const frames = await sock.until((f) =>
              f.slice(seen).some((x) => x.id === probe)
            );
            const answers = frames
              .slice(seen)
              .filter(
                (x: Frame) =>
                  x.id !== probe &&
                  (x.type === "reply" || x.type === "protocol.error")
              );
            const rejected = answers.some(
              (x) =>
                x.type === "protocol.error" ||
                (x.type === "reply" && x.ok === false)
            );
            const after = await snapshot(s);
            if (rejected) expect(after).toBe(before);
            before = after;
          }
        ),
        { seed: SEED, numRuns: RUNS * 4, endOnFailure: true }
      );
      expect(sock.frames.some((f) => f.type === "protocol.error")).toBe(true);
      sock.ws.close();
    });
  });
};
