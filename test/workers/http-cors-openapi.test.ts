import { describe, expect, it } from "vitest";
import { call, createSession, json, withEnv } from "./helpers";
import { ROUTE_TABLE } from "./tables";

const preflight = (origin: string, via = call) =>
  via("/v1/sessions", {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers":
        "authorization, content-type, idempotency-key"
    }
  });

describe("CORS", () => {
  it("answers a preflight from a localhost origin in development", async () => {
    const res = await preflight("http://localhost:5173");
    expect(res.status).toBe(204);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(
      "http://localhost:5173"
    );
    const allowed =
      res.headers.get("Access-Control-Allow-Headers")?.toLowerCase() ?? "";
    for (const header of ["authorization", "content-type", "idempotency-key"]) {
      expect(allowed).toContain(header);
    }
    expect(res.headers.get("Access-Control-Allow-Methods")).toContain("PATCH");
  });

  it("refuses other origins, and localhost without ROOST_DEV", async () => {
    const refused = await preflight("https://evil.example");
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const production = withEnv({ ROOST_DEV: undefined, ROOST_SECRETS: "k:s" });
    const local = await preflight("http://localhost:5173", production);
    expect(local.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("allows the origins listed in ROOST_CORS_ORIGINS, on errors too", async () => {
    const via = withEnv({
      ROOST_CORS_ORIGINS: "https://app.example, https://b.example"
    });
    const res = await preflight("https://b.example", via);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(
      "https://b.example"
    );
    const error = await via("/v1/nothing", {
      headers: { Origin: "https://app.example" }
    });
    expect(error.status).toBe(404);
    expect(error.headers.get("Access-Control-Allow-Origin")).toBe(
      "https://app.example"
    );
  });

  it("marks actual responses to an allowed origin", async () => {
    const session = await createSession();
    const res = await call(`/v1/sessions/${session.session_id}`, {
      headers: {
        Origin: "http://127.0.0.1:3000",
        Authorization: `Bearer ${session.token}`
      }
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(
      "http://127.0.0.1:3000"
    );
  });

  it("lets a browser MCP client send and read Mcp-Session-Id", async () => {
    const res = await call("/v1/environments/counter/mcp", {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:6274",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers":
          "content-type, mcp-session-id, mcp-protocol-version"
      }
    });
    const allowed =
      res.headers.get("Access-Control-Allow-Headers")?.toLowerCase() ?? "";
    expect(allowed).toContain("mcp-session-id");
    expect(allowed).toContain("mcp-protocol-version");
    // A browser that forks where API keys are required sends one.
    expect(allowed).toContain("x-api-key");
    const init = await call("/v1/environments/counter/mcp", {
      method: "POST",
      headers: {
        Origin: "http://localhost:6274",
        "Content-Type": "application/json"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" })
    });
    expect(init.headers.get("Mcp-Session-Id")).not.toBeNull();
    expect(
      init.headers.get("Access-Control-Expose-Headers")?.toLowerCase()
    ).toContain("mcp-session-id");
  });
});

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every route of the table", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await json<{
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          { security?: unknown; responses: Record<string, unknown> }
        >
      >;
      components: {
        securitySchemes: Record<string, unknown>;
        schemas: Record<string, unknown>;
      };
    }>(res);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.components.securitySchemes.bearer).toMatchObject({
      type: "http",
      scheme: "bearer"
    });
    for (const route of ROUTE_TABLE()) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      if (route.auth === "session") {
        expect(operation?.security).toEqual([{ bearer: [] }]);
        expect(operation?.responses["401"]).toBeDefined();
        expect(operation?.responses["403"]).toBeDefined();
      }
    }
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(ROUTE_TABLE().length);
    for (const name of [
      "StepRequest",
      "StepResponse",
      "ErrorResponse",
      "CreateSessionRequest",
      // The tree an environment lists, and the node a run is at.
      "TreeInfo",
      "TreeNodeEvent"
    ]) {
      expect(doc.components.schemas).toHaveProperty(name);
    }
  });

  it("lists every route in order, the store's key list included: the core's, then each layer's", () => {
    const routes = ROUTE_TABLE().map((r) => `${r.method} ${r.path}`);
    expect(routes).toEqual([
      "GET /health",
      "GET /v1/environments",
      "POST /v1/sessions",
      "GET /v1/sessions/{id}",
      "DELETE /v1/sessions/{id}",
      "POST /v1/sessions/{id}/fork",
      // Scoped tokens, and the hidden store only a grade token reads.
      "POST /v1/sessions/{id}/tokens",
      "POST /v1/sessions/{id}/tokens/revoke",
      "GET /v1/sessions/{id}/hidden",
      "POST /v1/sessions/{id}/reset",
      "POST /v1/sessions/{id}/step",
      // Beyond DESIGN: what reset answered, for a client that lost it.
      "GET /v1/sessions/{id}/tools",
      "POST /v1/sessions/{id}/tools/{tool}",
      "GET /v1/sessions/{id}/environment",
      // Beyond reads and edits: the counts a viewer's tree shows (the inspector's).
      "GET /v1/sessions/{id}/environment/keys",
      "GET /v1/sessions/{id}/events",
      "POST /v1/sessions/{id}/environment/{tool}/{name}",
      "PUT /v1/sessions/{id}/environment/{tool}/{name}",
      "PUT /v1/sessions/{id}/environment/{tool}/{name}/{index}",
      "DELETE /v1/sessions/{id}/environment/{tool}/{name}",
      "DELETE /v1/sessions/{id}/environment/{tool}/{name}/{index}",
      "GET /v1/sessions/{id}/state",
      "PATCH /v1/sessions/{id}/state",
      "GET /v1/sessions/{id}/messages",
      "GET /v1/sessions/{id}/frame",
      "POST /v1/sessions/{id}/runs",
      "GET /v1/sessions/{id}/runs/{run_id}",
      "POST /v1/sessions/{id}/runs/{run_id}/cancel",
      // The layers' routes after the core's, in allLayers()'s order.
      "GET /openapi.json",
      // The server's task statistics and the curriculum's draw from them.
      "GET /v1/environments/{name}/task-stats",
      "DELETE /v1/environments/{name}/task-stats",
      "POST /v1/environments/{name}/task-stats/sample",
      // A registered rubric applied again to the retained episodes (grade).
      "POST /v1/sessions/{id}/rescore",
      "POST /v1/sessions/{id}/chat",
      "GET /v1/sessions/{id}/chat/{chat_id}/stream",
      // The model gateway: an OpenAI-compatible endpoint, and its record.
      "POST /v1/sessions/{id}/model/v1/chat/completions",
      "GET /v1/sessions/{id}/model/calls",
      "POST /v1/sessions/{id}/mcp",
      "GET /v1/sessions/{id}/mcp",
      "DELETE /v1/sessions/{id}/mcp",
      "POST /v1/environments/{name}/mcp",
      "GET /v1/environments/{name}/mcp",
      "DELETE /v1/environments/{name}/mcp",
      "GET /v1/environments/{name}/aviary/info",
      "POST /v1/environments/{name}/aviary/start",
      "POST /v1/environments/{name}/aviary/reset",
      "POST /v1/environments/{name}/aviary/step",
      "POST /v1/environments/{name}/aviary/close",
      "POST /v1/environments/{name}/aviary/close_old_envs",
      "GET /v1/environments/{name}/splits/{split}/aviary/info",
      "POST /v1/environments/{name}/splits/{split}/aviary/start",
      "POST /v1/environments/{name}/splits/{split}/aviary/reset",
      "POST /v1/environments/{name}/splits/{split}/aviary/step",
      "POST /v1/environments/{name}/splits/{split}/aviary/close",
      "POST /v1/environments/{name}/splits/{split}/aviary/close_old_envs",
      "POST /v1/environments/{name}/openenv/connect",
      ...["", "/c/{credential}", "/s/{session}"].flatMap((base) =>
        ["ws", "health", "metadata", "schema"].map(
          (route) => `GET /v1/environments/{name}/openenv${base}/${route}`
        )
      ),
      ...["", "/c/{credential}", "/s/{session}"].flatMap((base) =>
        [
          "POST reset",
          "POST step",
          "GET state",
          "POST mcp",
          "GET openapi.json"
        ].map((r) => {
          const [method, route] = r.split(" ");
          return `${method} /v1/environments/{name}/openenv${base}/${route}`;
        })
      ),
      // OpenEnv's task API.
      ...["", "/c/{credential}", "/s/{session}"].flatMap((base) =>
        [
          "GET list_environments",
          "GET {env_name}/splits",
          "POST {env_name}/tasks",
          "POST {env_name}/num_tasks",
          "POST {env_name}/task",
          "POST {env_name}/task_range"
        ].map((r) => {
          const [method, route] = r.split(" ");
          return `${method} /v1/environments/{name}/openenv${base}/${route}`;
        })
      )
    ]);
  });
});

describe("public routes", () => {
  it("answers /health and lists the environments with their schemas", async () => {
    expect(await json(await call("/health"))).toEqual({ status: "ok" });
    const { environments } = await json<{
      environments: { name: string; tools: unknown[] }[];
    }>(await call("/v1/environments"));
    const counter = environments.find((e) => e.name === "counter");
    expect(counter?.tools).toHaveLength(2);
    expect(counter).toHaveProperty("task_schema");
  });
});
