// The code-analyst example over the real wrangler dev of global-setup.ts:
// the model's code runs in an isolate the e2e worker's Worker Loader
// starts, reads the store and answers; what it must not do (the network,
// an endless loop, a promise that never settles) is an error tool message
// that leaves the session as it was.
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { PRODUCTS } from "../../examples/catalog/collections";
import { createSignal } from "../shared/signal";
import { type Frame, framesOf } from "./helpers/frames";

const base = inject("baseUrl");

const request = async (
  method: "GET" | "POST",
  path: string,
  token?: string,
  body?: unknown
) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  });
  expect(res.status, `${method} ${path}`).toBe(
    method === "POST" && path === "/v1/sessions" ? 201 : 200
  );
  return (await res.json()) as Record<string, unknown>;
};

const round = (n: number) => Math.round(n * 100) / 100;

/** The average rating of each cat product category, computed here from the catalog's data. */
const catRatings = () => {
  const by = new Map<string, number[]>();
  for (const p of PRODUCTS.filter((p) => p.animal === "cat"))
    by.set(p.category, [...(by.get(p.category) ?? []), p.rating]);
  return Object.fromEntries(
    [...by].map(([category, ratings]) => [
      category,
      round(ratings.reduce((s, r) => s + r, 0) / ratings.length)
    ])
  );
};

/** What a model would write for "average rating of cat products, by category". */
const BY_CATEGORY = `
const [entry] = await store.find("catalog", "products");
const cats = entry.objects.filter((p) => p.animal === "cat");
console.log("read", entry.objects.length, "products,", cats.length, "for cats");
const by = {};
for (const p of cats) (by[p.category] ??= []).push(p.rating);
return Object.fromEntries(Object.entries(by).map(([c, r]) => [c, Math.round(r.reduce((s, x) => s + x, 0) / r.length * 100) / 100]));
`;

/** A code-analyst session on the cat toys' average rating, reset. */
const session = async () => {
  const created = (await request("POST", "/v1/sessions", undefined, {
    environment: "code-analyst"
  })) as { session_id: string; token: string; ws_url: string };
  const answer = catRatings().toy!;
  await request(
    "POST",
    `/v1/sessions/${created.session_id}/reset`,
    created.token,
    {
      task: {
        question: "What is the average rating of cat toy products?",
        metric: "avg_rating",
        animal: "cat",
        category: "toy",
        answer
      }
    }
  );
  return { ...created, answer, path: `/v1/sessions/${created.session_id}` };
};

const call = (
  s: { path: string; token: string },
  tool: string,
  args: Record<string, unknown>
) =>
  request("POST", `${s.path}/tools/${tool}`, s.token, {
    arguments: args
  }) as Promise<{ content: unknown; is_error: boolean; results: unknown[] }>;

/**
 * What a client reads of the session: status, state, store, transcript.
 * `last_used_at` is left out: it records that the session was used (the
 * call itself), not what it holds.
 */
const holdings = async (s: { path: string; token: string }) => {
  const read = (suffix: string) =>
    request("GET", `${s.path}${suffix}`, s.token);
  const { last_used_at: _used, ...status } = await read("");
  return {
    status,
    state: await read("/state"),
    store: await read("/environment"),
    messages: await read("/messages")
  };
};

/** A failing call: its error tool message, and the session exactly as before. */
const refused = async (
  s: { path: string; token: string },
  code: string,
  message: RegExp
) => {
  const before = await holdings(s);
  const out = await call(s, "run_js", { code });
  expect(out.is_error).toBe(true);
  expect(String(out.content)).toMatch(message);
  expect(String(out.content)).toContain("Nothing the code did was kept.");
  expect(out.results).toEqual([]);
  expect(await holdings(s)).toEqual(before);
  return String(out.content);
};

describe("code-analyst over wrangler dev", () => {
  it("runs the model's code against the store in a step, streams its result, and the answer scores", async () => {
    const s = await session();
    const ws = new WebSocket(s.ws_url, ["roost.v1", `roost.token.${s.token}`]);
    const frames: Frame[] = [];
    const signal = createSignal();
    ws.on("message", (data) => {
      frames.push(...framesOf(data));
      signal.notify();
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    await signal.until(
      () => frames.some((f) => f.type === "session.snapshot"),
      { what: "the snapshot" }
    );

    const step = (await request("POST", `${s.path}/step`, s.token, {
      action: {
        role: "assistant",
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: {
              name: "run_js",
              arguments: JSON.stringify({ code: BY_CATEGORY })
            }
          }
        ]
      }
    })) as {
      observations: { content: string; is_error: boolean }[];
      done: boolean;
    };
    const cats = PRODUCTS.filter((p) => p.animal === "cat").length;
    expect(step.done).toBe(false);
    expect(step.observations).toHaveLength(1);
    expect(step.observations[0]!.is_error).toBe(false);
    // The return value as JSON, and what the code printed (captured, not logged).
    expect(JSON.parse(step.observations[0]!.content)).toEqual({
      result: catRatings(),
      stdout: `read ${PRODUCTS.length} products, ${cats} for cats\n`
    });

    // The stream shows the call and its result as the model read it.
    await signal.until(
      () =>
        frames.some(
          (f) =>
            f.type === "message" &&
            (f.message as { role?: string }).role === "tool"
        ),
      { what: "the tool message" }
    );
    expect(frames).toContainEqual(
      expect.objectContaining({
        type: "tool.finished",
        call_id: "c1",
        tool: "run_js",
        is_error: false
      })
    );
    const toolMessage = frames.find(
      (f) =>
        f.type === "message" && (f.message as { role?: string }).role === "tool"
    )!.message as { content: string };
    expect(JSON.parse(toolMessage.content).result).toEqual(catRatings());
    ws.close();

    const submitted = (await request("POST", `${s.path}/step`, s.token, {
      action: {
        role: "assistant",
        tool_calls: [
          {
            id: "c2",
            type: "function",
            function: {
              name: "submit_answer",
              arguments: JSON.stringify({ answer: catRatings().toy })
            }
          }
        ]
      }
    })) as { reward: number; done: boolean };
    expect(submitted).toMatchObject({ reward: 1, done: true });
  }, 60_000);

  it("refuses a fetch from the code with a clear error, and keeps nothing", async () => {
    const s = await session();
    await refused(
      s,
      'const r = await fetch("https://example.com/"); return r.status;',
      /not permitted to access the internet/
    );
  }, 60_000);

  it("stops an endless loop at the step limit, the session unchanged and still usable", async () => {
    const s = await session();
    await refused(
      s,
      'console.log("looping"); let n = 0; while (true) { n++; }',
      /LimitError: the code ran more than 10000000 steps[\s\S]*stdout before the error:\nlooping/
    );
    // The next call runs as if nothing happened.
    const next = await call(s, "run_js", { code: "return 6 * 7" });
    expect(next).toMatchObject({ is_error: false });
    expect(JSON.parse(String(next.content))).toEqual({ result: 42 });
  }, 60_000);

  it("gives up on a promise that never settles at the timeout, the session unchanged", async () => {
    const s = await session();
    await refused(
      s,
      'setTimeout(() => console.log("too late"), 20_000); await new Promise(() => {});',
      /The sandbox stopped: the code did not finish within 5000 ms/
    );
    const next = await call(s, "run_js", {
      code: 'return (await store.keys()).map((k) => k.tool + "/" + k.name)'
    });
    expect(next.is_error).toBe(false);
    expect(JSON.parse(String(next.content))).toEqual({
      result: ["catalog/products"]
    });
  }, 60_000);
});
