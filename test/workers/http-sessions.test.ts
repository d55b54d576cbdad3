import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createSession, errorOf, json, send, withEnv } from "./helpers";

describe("POST /v1/sessions", () => {
  it("creates a session and answers 201 with its id, token, environment and ws_url", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "counter" })
    );
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ environment: "counter" });
    expect(body.session_id).toMatch(/^[0-9a-f]{64}$/);
    expect(body.token).toMatch(/^v1\.dev\.[A-Za-z0-9_-]+$/);
    expect(body.ws_url).toBe(
      `ws://127.0.0.1:8787/v1/sessions/${body.session_id}/ws`
    );
  });

  it("gives a ws:// url to a request that came over http", async () => {
    const res = await SELF.fetch(
      "http://localhost:8787/v1/sessions",
      send("POST", { environment: "counter" })
    );
    const body = await json(res);
    expect(body.ws_url).toBe(
      `ws://localhost:8787/v1/sessions/${body.session_id}/ws`
    );
  });

  it("answers 404 not_found for an unknown environment, naming those that exist", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "nope" })
    );
    expect(res.status).toBe(404);
    const error = await errorOf(res);
    const names = (
      await json<{ environments: { name: string }[] }>(
        await call("/v1/environments")
      )
    ).environments.map((e) => e.name);
    expect(error).toEqual({
      code: "not_found",
      message: expect.stringMatching(
        /^No environment named "nope"\. This server has: counter, /
      ),
      details: { environment: "nope", environments: names }
    });
    // The first twenty by name, and how many more: details lists them all.
    for (const name of names.slice(0, 20))
      expect(error.message).toContain(name);
    if (names.length > 20)
      expect(error.message).toContain(` and ${names.length - 20} more.`);
  });

  it("names the environments that exist on every path that names an unknown one: MCP, OpenEnv, Aviary", async () => {
    const requests: [string, ReturnType<typeof send> | undefined][] = [
      [
        "/v1/environments/nope/mcp",
        send(
          "POST",
          {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "t", version: "1" }
            }
          },
          {
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream"
          }
        )
      ],
      ["/v1/environments/nope/openenv/connect", send("POST", {})],
      ["/v1/environments/nope/openenv/metadata", undefined],
      ["/v1/environments/nope/aviary/info", undefined],
      ["/v1/environments/nope/aviary/start", send("POST", {})]
    ];
    for (const [path, init] of requests) {
      const res = await call(path, init);
      expect(res.status, path).toBe(404);
      const error = await errorOf(res);
      expect(error.code, path).toBe("not_found");
      expect(error.message, path).toMatch(
        /^No environment named "nope"\. This server has: counter, .*lab/
      );
      expect(error.details, path).toMatchObject({
        environment: "nope",
        environments: expect.arrayContaining(["counter", "lab"])
      });
    }
  });

  it("answers 400 invalid_name for an environment name outside the name rule", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "no spaces" })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_name");
  });

  it("validates the task in the worker and names the field", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "counter", task: { target: "ten" } })
    );
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("task.target");
  });

  it("refuses task and task_index together, naming task_index", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", {
        environment: "counter",
        task: { target: 3 },
        task_index: 0
      })
    );
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("task_index");
  });

  it("refuses task_index for an environment without a dataset", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "counter", task_index: 0 })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toMatchObject({ field: "task_index" });
  });

  it("refuses unknown fields and a bad location hint", async () => {
    for (const body of [
      { environment: "counter", extra: 1 },
      { environment: "counter", location_hint: "mars" }
    ]) {
      const res = await call("/v1/sessions", send("POST", body));
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_request");
    }
  });

  it("accepts a location hint", async () => {
    const session = await createSession({
      environment: "counter",
      location_hint: "weur"
    });
    const res = await session.call("");
    expect(res.status).toBe(200);
    expect((await json(res)).environment).toBe("counter");
  });

  it("answers 400 naming jurisdiction where the runtime has none (local workerd)", async () => {
    const res = await call(
      "/v1/sessions",
      send("POST", { environment: "counter", jurisdiction: "eu" })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toMatchObject({
      field: "jurisdiction"
    });
  });
});

describe("GET and DELETE /v1/sessions/:id", () => {
  it("reports the status of a new session", async () => {
    const session = await createSession();
    const res = await session.call("");
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      session_id: session.session_id,
      environment: "counter",
      episode: 0,
      steps: 0,
      status: "created"
    });
  });

  it("deletes the session; its token then gets 404 on every route", async () => {
    const session = await createSession();
    const res = await session.call("", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      session_id: session.session_id,
      deleted: true
    });
    for (const [path, init] of [
      ["", {}],
      ["/state", {}],
      ["/reset", send("POST", {})]
    ] as const) {
      const after = await session.call(path, init);
      expect(after.status).toBe(404);
      expect((await errorOf(after)).code).toBe("not_found");
    }
  });

  it("answers 404 to an API key holder asking for a session that never existed", async () => {
    const via = withEnv({ ROOST_API_KEYS: "admin-key" });
    const { session_id } = await createSession(
      { environment: "counter" },
      via,
      { Authorization: "Bearer admin-key" }
    );
    const res = await via(`/v1/sessions/${session_id}`, {
      method: "DELETE",
      headers: { Authorization: "Bearer admin-key" }
    });
    expect(res.status).toBe(200);
    const again = await via(`/v1/sessions/${session_id}`, {
      headers: { Authorization: "Bearer admin-key" }
    });
    expect(again.status).toBe(404);
  });
});
