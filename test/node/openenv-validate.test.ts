// OpenEnv's runtime validator (`openenv validate --url <base>`), replayed:
// exactly the requests of validate_running_environment in OpenEnv's
// src/openenv/cli/_validation.py, in its order, with what the Python
// `requests` library sends (its default headers; `json={}` is the body
// `{}` as application/json), and each of its six required criteria judged
// as it judges them. Run against every OpenEnv base of every environment
// the e2e worker serves: the open base, a connect URL, and a session's.
import { describe, expect, inject, it } from "vitest";

const baseUrl = inject("baseUrl");

// What requests.get / requests.post send unless told otherwise.
const REQUESTS_HEADERS = {
  "User-Agent": "python-requests/2.32.3",
  "Accept-Encoding": "gzip, deflate",
  Accept: "*/*"
};

const jsonOf = async (response: Response): Promise<unknown> => {
  try {
    return await response.json();
  } catch {
    return null; // the validator's `except ValueError`
  }
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** validate_running_environment's criteria, id → passed. */
const validate = async (base: string): Promise<Record<string, boolean>> => {
  const get = (path: string) =>
    fetch(`${base}${path}`, { headers: REQUESTS_HEADERS });
  const criteria: Record<string, boolean> = {};
  const openapi = await get("/openapi.json");
  const doc = await jsonOf(openapi);
  criteria.openapi_version_available =
    openapi.status === 200 &&
    isObject(doc) &&
    isObject(doc.info) &&
    typeof doc.info.version === "string";
  const paths =
    criteria.openapi_version_available && isObject(doc) ? doc.paths : {};
  const health = await get("/health");
  const healthJson = await jsonOf(health);
  criteria.health_endpoint =
    health.status === 200 &&
    isObject(healthJson) &&
    healthJson.status === "healthy";
  const metadata = await get("/metadata");
  const metadataJson = await jsonOf(metadata);
  criteria.metadata_endpoint =
    metadata.status === 200 &&
    isObject(metadataJson) &&
    typeof metadataJson.name === "string" &&
    typeof metadataJson.description === "string";
  const schema = await get("/schema");
  const schemaJson = await jsonOf(schema);
  criteria.schema_endpoint =
    schema.status === 200 &&
    isObject(schemaJson) &&
    isObject(schemaJson.action) &&
    isObject(schemaJson.observation) &&
    isObject(schemaJson.state);
  const mcp = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...REQUESTS_HEADERS, "Content-Type": "application/json" },
    body: "{}"
  });
  const mcpJson = await jsonOf(mcp);
  criteria.mcp_endpoint =
    mcp.status === 200 && isObject(mcpJson) && mcpJson.jsonrpc === "2.0";
  // Simulation mode when /reset is listed: then /step and /state too.
  criteria.mode_endpoint_consistency =
    isObject(paths) &&
    Object.keys(paths).length > 0 &&
    (paths["/reset"] !== undefined
      ? paths["/step"] !== undefined && paths["/state"] !== undefined
      : paths["/step"] === undefined && paths["/state"] === undefined);
  return criteria;
};

const ALL_PASS = {
  openapi_version_available: true,
  health_endpoint: true,
  metadata_endpoint: true,
  schema_endpoint: true,
  mcp_endpoint: true,
  mode_endpoint_consistency: true
};

const environments = async (): Promise<string[]> => {
  const response = await fetch(`${baseUrl}/v1/environments`);
  const body = (await response.json()) as {
    environments: { name: string }[];
  };
  return body.environments.map((e) => e.name);
};

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body)
  });

describe("openenv validate against every OpenEnv base", () => {
  it("passes all six required criteria on the open base, a connect URL and a reset session's base, for every environment", async () => {
    const names = await environments();
    expect(names).toContain("counter");
    let sessionBases = 0;
    for (const name of names) {
      const open = `${baseUrl}/v1/environments/${name}/openenv`;
      expect({ name, ...(await validate(open)) }).toEqual({
        name,
        ...ALL_PASS
      });
      const connect = await post(`${open}/connect`, {});
      expect(connect.status).toBe(200);
      const { base_url } = (await connect.json()) as { base_url: string };
      expect({ name, ...(await validate(base_url)) }).toEqual({
        name,
        ...ALL_PASS
      });
      // An environment without a default task has no session to name
      // until a reset names its task; the others get one from `{}`.
      const reset = await post(`${open}/reset`, {});
      if (reset.status !== 200) {
        expect(reset.status).toBe(400);
        continue;
      }
      const { metadata } = (await reset.json()) as {
        metadata: { reattach_base_url: string };
      };
      expect({ name, ...(await validate(metadata.reattach_base_url)) }).toEqual(
        { name, ...ALL_PASS }
      );
      sessionBases++;
    }
    expect(sessionBases).toBeGreaterThan(0);
  });

  it("lists the base's routes relative to it, with OpenEnv's API version", async () => {
    const open = `${baseUrl}/v1/environments/counter/openenv`;
    const doc = (await (await fetch(`${open}/openapi.json`)).json()) as {
      info: { version: string };
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: "." }]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/connect",
      "/health",
      "/list_environments",
      "/mcp",
      "/metadata",
      "/openapi.json",
      "/reset",
      "/schema",
      "/state",
      "/step",
      "/ws",
      // OpenEnv's task API, its {env_name} a parameter of the relative path.
      "/{env_name}/num_tasks",
      "/{env_name}/splits",
      "/{env_name}/task",
      "/{env_name}/task_range",
      "/{env_name}/tasks"
    ]);
    const task = doc.paths["/{env_name}/task"] as {
      post: { parameters: { name: string; in: string }[] };
    };
    expect(task.post.parameters).toEqual([
      expect.objectContaining({ name: "env_name", in: "path" })
    ]);
  });
});

describe("OpenEnv's HTTP reset, step and state", () => {
  const open = `${baseUrl}/v1/environments/counter/openenv`;
  const incr = {
    action: { type: "call_tool", tool_name: "incr", arguments: {} }
  };

  it("a reset's session continues under the base it answers; the open base steps a fresh episode each time", async () => {
    const reset = await post(`${open}/reset`, { episode_id: "ep-1" });
    expect(reset.status).toBe(200);
    const first = (await reset.json()) as {
      observation: { messages: unknown[]; metadata: Record<string, string> };
      reward: number;
      done: boolean;
      metadata: Record<string, string>;
    };
    expect(first).toMatchObject({ reward: 0, done: false });
    expect(first.observation.messages).toEqual([
      { role: "user", content: expect.stringContaining("Count to") }
    ]);
    expect(first.metadata.episode_id).toBe("ep-1");
    const base = first.metadata.reattach_base_url;
    expect(base).toBe(
      `${open}/s/${first.metadata.session_id}.${first.metadata.session_token}`
    );
    for (const count of [1, 2]) {
      const step = await post(`${base}/step`, incr);
      expect(step.status).toBe(200);
      const body = (await step.json()) as {
        observation: { result: { data: string } };
      };
      expect(body.observation.result.data).toBe(`counter=${count}`);
    }
    const state = (await (await fetch(`${base}/state`)).json()) as Record<
      string,
      unknown
    >;
    expect(state).toMatchObject({
      session_id: first.metadata.session_id,
      step_count: 2,
      kept: true
    });
    expect((state.values as { count: number }).count).toBe(2);
    // Stateless, as OpenEnv's own server: each step a fresh episode.
    for (let i = 0; i < 2; i++) {
      const step = (await (await post(`${open}/step`, incr)).json()) as {
        observation: { result: { data: string } };
      };
      expect(step.observation.result.data).toBe("counter=1");
    }
    const fresh = (await (await fetch(`${open}/state`)).json()) as Record<
      string,
      unknown
    >;
    expect(fresh).toMatchObject({ step_count: 0, episode: 0, kept: false });
  });

  it("bad input is a 4xx in the API's error shape and changes nothing", async () => {
    const base = (
      (await (await post(`${open}/reset`, {})).json()) as {
        metadata: { reattach_base_url: string };
      }
    ).metadata.reattach_base_url;
    const cases: [string, unknown, number][] = [
      [`${base}/step`, {}, 400],
      [`${base}/step`, { action: "incr" }, 400],
      [`${base}/step`, { action: { type: "call_tool" } }, 400],
      [`${base}/reset`, { seed: "x" }, 400],
      [`${open}/s/nope.nope/step`, incr, 403],
      [`${open}/c/nope/reset`, {}, 403]
    ];
    for (const [url, body, status] of cases) {
      const response = await post(url, body);
      expect({ url, status: response.status }).toEqual({ url, status });
      const error = (await response.json()) as {
        error: { code: string; message: string };
      };
      expect(typeof error.error.code).toBe("string");
      expect(typeof error.error.message).toBe("string");
    }
    const notJson = await fetch(`${base}/step`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{"
    });
    expect(notJson.status).toBe(400);
    const state = (await (await fetch(`${base}/state`)).json()) as {
      step_count: number;
    };
    expect(state.step_count).toBe(0);
  });
});
