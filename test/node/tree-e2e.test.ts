import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { createClient } from "../../src/client/index";
import {
  decideCompletion as decide,
  fakeOpenAIRequests,
  scriptFakeOpenAI
} from "./fake-openai";
import { framesOf } from "./helpers/frames";

// A catalog run under wrangler dev whose `openai` model is the fake
// OpenAI-compatible server: the whole path from HTTP to the model and back.
const base = inject("baseUrl");
const fake = inject("fakeOpenAIUrl");

const call = async (
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {}
) => {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      "content-type": "application/json",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {})
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  });
  // Shapes are asserted by the tests; a loose type keeps them short.
  // biome-ignore lint/suspicious/noExplicitAny: test-side JSON
  return { status: res.status, body: (await res.json()) as any };
};

describe("a decision-tree run against an OpenAI-compatible server", () => {
  it("walks the catalog tree, retrying a malformed and a failed completion", async () => {
    await scriptFakeOpenAI(fake, [
      decide({ function_name: "search", message_update: "Searching." }),
      decide({
        function_name: "query",
        function_inputs: {
          collection: "products",
          filters: [{ field: "animal", op: "eq", value: "cat" }],
          limit: 3
        }
      }),
      // Pass 2: a reply that is not JSON, then a server error, then an answer.
      { text: "this is not json" },
      { status: 500, body: { error: { message: "overloaded" } } },
      decide({
        function_name: "text_response",
        function_inputs: { text: "Three cat products, found." },
        end_actions: true
      })
    ]);
    const created = await call("/v1/sessions", {
      body: { environment: "catalog" }
    });
    const { session_id: id, token } = created.body;
    await call(`/v1/sessions/${id}/reset`, { body: {}, token });
    const frames: { type: string }[] = [];
    const ws = new WebSocket(
      `${base.replace("http", "ws")}/v1/sessions/${id}/ws`,
      ["roost.v1", `roost.token.${token}`]
    );
    ws.on("message", (d) => frames.push(...framesOf(d)));
    await new Promise((r) => ws.once("open", r));

    const started = await call(`/v1/sessions/${id}/runs`, {
      body: { prompt: "Any cat products?" },
      token
    });
    expect(started.status).toBe(202);
    const run = await call(
      `/v1/sessions/${id}/runs/${started.body.run_id}?wait=30`,
      { token }
    );
    expect(run.body).toMatchObject({
      state: "completed",
      outcome: "answered",
      model: "openai",
      passes: 2,
      final_text: "Three cat products, found."
    });
    expect(run.body.tasks.map((t: { task: string }) => t.task)).toEqual([
      "search",
      "query",
      "text_response"
    ]);

    const sent = await fakeOpenAIRequests(fake);
    expect(sent).toHaveLength(5);
    const first = sent[0]!;
    expect(first.path).toBe("/v1/chat/completions");
    const body = first.body as {
      model: string;
      messages: { role: string; content: string }[];
      tools: {
        function: {
          name: string;
          parameters: {
            properties: { function_name: { enum: string[] } };
          };
        };
      }[];
    };
    expect(body.model).toBe("fake-model");
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[1]!.content).toContain("Any cat products?");
    const tool = body.tools[0]!.function;
    expect(tool.name).toBe("decide");
    // At the root: the search branch and text_response.
    expect(tool.parameters.properties.function_name.enum.sort()).toEqual([
      "search",
      "text_response"
    ]);
    // In the branch the model saw the catalog's tools.
    const second = sent[1]!.body as typeof body;
    expect(
      second.tools[0]!.function.parameters.properties.function_name.enum.sort()
    ).toEqual(["aggregate", "query"]);

    // The result reached the store and the socket.
    const store = await call(
      `/v1/sessions/${id}/environment?tool=query&name=products`,
      { token }
    );
    expect(store.body.entries[0].objects).toHaveLength(3);
    await expect
      .poll(() => frames.some((f) => f.type === "tree.completed"))
      .toBe(true);
    const types = new Set(frames.map((f) => f.type));
    for (const t of ["tree.decision", "result", "message"]) {
      expect(types.has(t)).toBe(true);
    }
    ws.close();
  });
});

describe("runs through the TypeScript client", () => {
  it("starts a run and waits for it with session.run()", async () => {
    const client = createClient({ baseUrl: base });
    const session = await client.createSession({ environment: "catalog" });
    await session.reset();
    const status = await session.run(
      "Which cat toys are rated 4.5 or higher?",
      {
        model: "scripted"
      }
    );
    expect(status).toMatchObject({
      state: "completed",
      outcome: "answered",
      model: "scripted",
      passes: 3
    });
    expect(status.tasks.map((t) => t.task)).toEqual([
      "search",
      "query",
      "search",
      "aggregate",
      "text_response"
    ]);
    expect((await session.readRun(status.run_id)).final_text).toBe(
      status.final_text
    );
  });
});
