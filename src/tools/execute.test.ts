import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createEpisodeControl } from "../environment/episode-control";
import type { ToolCall } from "../messages/schema";
import { defineState } from "../state/define-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import {
  error,
  healingText,
  result,
  status,
  UNKNOWN_FEEDBACK
} from "../store/result";
import { type Tool, tool } from "./define-tool";
import { type ExecuteOptions, executeToolCalls } from "./execute";
import type { MergeableState } from "./outputs";

const stateDef = defineState({
  count: { type: z.number().int().default(0) },
  log: { type: z.array(z.string()).default([]) },
  small: { type: z.number().max(10).optional() }
});

const scopeWith = (tools: Record<string, Tool>) => {
  const state = new State(
    stateDef,
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  );
  const environment = createEnvironmentStore(new MemoryStoreBackend());
  const hidden = new MemoryHiddenStore();
  const { control, signals } = createEpisodeControl();
  const scope = {
    tools: new Map(
      Object.entries(tools).map(([k, t]) => [k, { ...t, name: k }])
    ),
    environment,
    hidden,
    state: state as unknown as MergeableState,
    task: { q: 1 },
    episode: control
  };
  return { scope, state, environment, hidden, signals };
};

let n = 0;
const call = (name: string, args: unknown = {}): ToolCall => ({
  id: `c${++n}`,
  type: "function",
  function: {
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args)
  }
});

const echo = tool({
  description: "Echo.",
  input: z.object({ text: z.string(), times: z.number().int().min(1) }),
  run: ({ text, times }) => text.repeat(times)
});

describe("executeToolCalls", () => {
  it("answers in request order with the tool's content", async () => {
    const { scope } = scopeWith({ echo: echo as Tool });
    const out = await executeToolCalls(
      [
        call("echo", { text: "a", times: 2 }),
        call("echo", { text: "b", times: 1 })
      ],
      scope
    );
    expect(out.map((o) => o.message.content)).toEqual(["aa", "b"]);
    expect(out.every((o) => o.message.is_error === false)).toBe(true);
    expect(out[0]!.message).toMatchObject({ role: "tool", name: "echo" });
  });

  it("answers an unknown tool with Aviary's error message and the tools there are", async () => {
    const { scope } = scopeWith({ echo: echo as Tool });
    const [out] = await executeToolCalls([call("nope")], scope);
    expect(out!.message).toMatchObject({
      content: "Invalid tool call: nope is not a tool. Tools: echo.",
      is_error: true
    });
    const none = await executeToolCalls([call("nope")], scopeWith({}).scope);
    expect(none[0]!.message.content).toBe(
      "Invalid tool call: nope is not a tool. Tools: none."
    );
  });

  it("names missing, unexpected and expected keys, optional ones marked", async () => {
    const guess = tool({
      description: "Guess a word.",
      input: z.object({ word: z.string(), hint: z.boolean().optional() }),
      run: ({ word }) => word
    });
    const strict = tool({
      description: "Guess, refusing unknown keys.",
      input: z.strictObject({ word: z.string() }),
      run: ({ word }) => word
    });
    const { scope } = scopeWith({
      guess: guess as Tool,
      strict: strict as Tool
    });
    const [typo, strictTypo, extraOnly] = await executeToolCalls(
      [
        call("guess", { wrod: "crane" }),
        call("strict", { word: "crane", hnt: true }),
        // Keys an object input does not know are dropped when all else is right.
        call("guess", { word: "crane", wrod: "x" })
      ],
      scope
    );
    expect(typo!.message.content).toBe(
      'Invalid arguments for guess: missing required key "word"; unexpected key "wrod". Expected keys: word, hint (optional).'
    );
    expect(strictTypo!.message.content).toBe(
      'Invalid arguments for strict: unexpected key "hnt". Expected keys: word.'
    );
    expect(extraOnly!.message).toMatchObject({
      content: "crane",
      is_error: false
    });
  });

  it("names the invalid field instead of failing the request", async () => {
    const { scope } = scopeWith({ echo: echo as Tool });
    const [bad, json, arr] = await executeToolCalls(
      [
        call("echo", { text: "a", times: 0 }),
        call("echo", "{oops"),
        call("echo", "[1]")
      ],
      scope
    );
    expect(bad!.message.is_error).toBe(true);
    expect(bad!.message.content).toMatch(/^Invalid arguments for echo: times:/);
    expect(json!.message.content).toBe(
      "Invalid arguments for echo: not valid JSON."
    );
    expect(arr!.message.content).toMatch(/expected a JSON object/);
  });

  it("accepts arguments as an object as well as a JSON string", async () => {
    const { scope } = scopeWith({ echo: echo as Tool });
    const [out] = await executeToolCalls(
      [
        {
          id: "x",
          type: "function",
          function: { name: "echo", arguments: { text: "z", times: 3 } }
        }
      ],
      scope
    );
    expect(out!.message.content).toBe("zzz");
  });

  it("catches exceptions into error tool messages", async () => {
    const boom = tool({
      description: "Fails.",
      input: z.object({}),
      run: () => {
        throw new Error("bad thing");
      }
    });
    const { scope } = scopeWith({ boom: boom as Tool });
    const [out] = await executeToolCalls([call("boom")], scope);
    expect(out!.message).toMatchObject({
      is_error: true,
      content: "Tool boom failed: bad thing"
    });
  });

  it("times out async waits, aborts the signal and refuses later writes", async () => {
    let seen: AbortSignal | undefined;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let lateWrite: unknown;
    let finished!: () => void;
    const tried = new Promise<void>((r) => {
      finished = r;
    });
    const slow = tool({
      description: "Waits.",
      input: z.object({}),
      timeoutMs: 5,
      run: async (_a, ctx) => {
        seen = ctx.signal;
        await new Promise<void>((r) =>
          ctx.signal.addEventListener("abort", () => r())
        );
        await gate;
        try {
          ctx.state.set("count", 99);
        } catch (e) {
          lateWrite = e;
        }
        finished();
        return "late";
      }
    });
    const { scope, state } = scopeWith({ slow: slow as Tool });
    const [out] = await executeToolCalls([call("slow")], scope);
    expect(out!.message).toMatchObject({
      is_error: true,
      content: "Tool slow failed: Tool slow timed out after 5 ms."
    });
    expect(seen?.aborted).toBe(true);
    release();
    await tried;
    expect(String(lateWrite)).toMatch(/timed out/);
    expect(state.get("count")).toBe(0);
  });

  it("hands a signal first read after the timeout over already aborted, with the timeout's reason", async () => {
    let late: AbortSignal | undefined;
    let read!: () => void;
    const done = new Promise<void>((r) => {
      read = r;
    });
    const slow = tool({
      description: "Reads its signal only after the timeout.",
      input: z.object({}),
      timeoutMs: 5,
      run: async (_a, ctx) => {
        await new Promise((r) => setTimeout(r, 30));
        late = ctx.signal;
        read();
        return "late";
      }
    });
    const { scope } = scopeWith({ slow: slow as Tool });
    const [out] = await executeToolCalls([call("slow")], scope);
    expect(out!.message.content).toBe(
      "Tool slow failed: Tool slow timed out after 5 ms."
    );
    await done;
    expect(late?.aborted).toBe(true);
    expect(String(late?.reason)).toMatch(/timed out after 5 ms/);
  });

  it("runs concurrency-safe calls together and unsafe ones alone", async () => {
    let active = 0;
    const seen: string[] = [];
    const mk = (safe: boolean) =>
      tool({
        description: "Tracks overlap.",
        input: z.object({ id: z.string() }),
        concurrencySafe: safe,
        run: async ({ id }) => {
          active++;
          seen.push(`${id}:start:${active}`);
          await Promise.resolve();
          await Promise.resolve();
          seen.push(`${id}:end`);
          active--;
          return id;
        }
      });
    const { scope } = scopeWith({
      safe: mk(true) as Tool,
      alone: mk(false) as Tool
    });
    const out = await executeToolCalls(
      [
        call("safe", { id: "a" }),
        call("safe", { id: "b" }),
        call("alone", { id: "c" }),
        call("safe", { id: "d" })
      ],
      scope
    );
    expect(out.map((o) => o.message.content)).toEqual(["a", "b", "c", "d"]);
    // a and b overlap; c starts only when nothing runs and d waits for c.
    expect(seen).toContain("b:start:2");
    expect(seen).toContain("c:start:1");
    expect(seen.indexOf("c:start:1")).toBeGreaterThan(seen.indexOf("b:end"));
    expect(seen.indexOf("d:start:1")).toBeGreaterThan(seen.indexOf("c:end"));
  });

  it("stores yielded Results as they come and streams them through hooks", async () => {
    const events: string[] = [];
    const search = tool({
      description: "Yields results.",
      input: z.object({ q: z.string() }),
      run: async function* ({ q }) {
        yield status(`searching ${q}`);
        yield result({
          name: "hits",
          objects: [{ t: 1 }, { t: 2 }],
          metadata: { q }
        });
        events.push("after first result");
        yield result({
          name: "hits",
          objects: [{ t: 3 }],
          metadata: { q },
          llmMessage: "Found {count} more for {q}."
        });
        return undefined;
      }
    });
    const { scope, environment } = scopeWith({ search: search as Tool });
    const hooks: ExecuteOptions["hooks"] = {
      onStart: (c) => events.push(`start ${c.tool}`),
      onUpdate: (_c, u) => events.push(`update ${u.kind}`),
      onResult: (_c, r, stored) => {
        events.push(
          `result ${r.name} #${stored.index} (${environment.find("search", "hits").length} stored)`
        );
      },
      onFinish: (c, m) => events.push(`finish ${c.tool} ${m.is_error}`)
    };
    const [out] = await executeToolCalls(
      [call("search", { q: "frogs" })],
      scope,
      { hooks }
    );
    expect(events).toEqual([
      "start search",
      "update status",
      "result hits #0 (1 stored)",
      "after first result",
      "result hits #1 (2 stored)",
      "finish search false"
    ]);
    expect(out!.results.map((r) => r.objects.length)).toEqual([2, 1]);
    expect(out!.message.content).toBe(
      'Stored 2 object(s) under "hits".\nFound 1 more for frogs.'
    );
    expect(environment.find("search", "hits", 0).metadata).toEqual({
      q: "frogs"
    });
  });

  it("stores a result's payload type and mapping, and tells the model it was displayed", async () => {
    const list = tool({
      description: "Lists products as a table.",
      input: z.object({}),
      run: async function* () {
        yield result({
          name: "products",
          objects: [{ title: "Kettle", price_eur: 30 }],
          payloadType: "table",
          mapping: { product: "title", price: "price_eur" }
        });
        yield result({
          name: "products",
          objects: [{ title: "Toaster", price_eur: 25 }],
          payloadType: "table",
          llmMessage: "Showed {count} as a {payload_type}."
        });
      }
    });
    const { scope, environment } = scopeWith({ list: list as Tool });
    const [out] = await executeToolCalls([call("list", {})], scope);
    expect(out!.message).toMatchObject({
      is_error: false,
      content:
        'Stored 1 object(s) under "products", displayed to the user as a table.\nShowed 1 as a table.'
    });
    expect(environment.find("list", "products", 0)).toMatchObject({
      payloadType: "table",
      mapping: { product: "title", price: "price_eur" },
      objects: [{ title: "Kettle", price_eur: 30 }]
    });
    expect(out!.results[0]).toMatchObject({ payloadType: "table" });
  });

  it("fails the call with a message naming the field when a mapping is not strings", async () => {
    const sloppy = tool({
      description: "Maps a field to a number.",
      input: z.object({}),
      run: async function* () {
        yield result({
          name: "products",
          objects: [{ title: "Kettle" }],
          mapping: { product: 1 } as unknown as Record<string, string>
        });
      }
    });
    const { scope, environment } = scopeWith({ sloppy: sloppy as Tool });
    const [out] = await executeToolCalls([call("sloppy", {})], scope);
    expect(out!.message.is_error).toBe(true);
    expect(out!.message.content).toContain(
      "mapping.product must be a string naming a field of the objects"
    );
    expect(environment.isEmpty()).toBe(true);
  });

  it("reports a self-healing error to the model as an error message, avoidable or not", async () => {
    const picky = tool({
      description: "Asks for a better query, or gives up.",
      input: z.object({ fixable: z.boolean() }),
      run: async function* ({ fixable }, ctx) {
        ctx.emit({ kind: "warning", text: "hmm" });
        yield fixable
          ? error({ feedback: "Use a narrower query.", message: "too broad" })
          : error({ message: "the index is offline" });
      }
    });
    const { scope } = scopeWith({ picky: picky as Tool });
    const [fixable, unknown] = await executeToolCalls(
      [call("picky", { fixable: true }), call("picky", { fixable: false })],
      scope
    );
    expect(fixable!.message).toMatchObject({
      is_error: true,
      content: "Use a narrower query."
    });
    expect(fixable!.error).toEqual({
      kind: "self_healing_error",
      feedback: "Use a narrower query.",
      message: "too broad",
      avoidable: true
    });
    expect(healingText(fixable!.error!)).toBe(
      "Avoidable error: Use a narrower query. (a later call that follows this feedback should succeed)"
    );
    // No feedback: Elysia's "unknown issue", and the model reads what went wrong.
    expect(unknown!.message).toMatchObject({
      is_error: true,
      content: "the index is offline"
    });
    expect(unknown!.error).toMatchObject({
      feedback: UNKNOWN_FEEDBACK,
      avoidable: false
    });
    expect(healingText(unknown!.error!)).toMatch(
      /^Unknown error: the index is offline \(/
    );
  });

  it("applies outputsToState in request order, and a rejected merge changes nothing", async () => {
    const put = tool({
      description: "Reports a number.",
      input: z.object({ v: z.number() }),
      outputsToState: {
        count: { source: "value" },
        log: { source: "label" },
        small: { source: "value" }
      },
      run: async ({ v }) => {
        // The later call finishes first; merges still follow request order.
        if (v === 1) await Promise.resolve();
        return { value: v, label: `v${v}` };
      }
    });
    const { scope, state } = scopeWith({ put: put as Tool });
    const out = await executeToolCalls(
      [call("put", { v: 1 }), call("put", { v: 2 }), call("put", { v: 50 })],
      scope
    );
    expect(out.map((o) => o.message.is_error)).toEqual([false, false, true]);
    expect(out[2]!.message.content).toMatch(
      /could not be merged into state: small/
    );
    expect(state.get("log")).toEqual(["v1", "v2"]);
    expect(state.get("count")).toBe(2);
    expect(state.get("small")).toBe(2);
  });

  it("caps tool message content with a marker", async () => {
    const big = tool({
      description: "Big.",
      input: z.object({}),
      run: () => "x".repeat(100)
    });
    const { scope } = scopeWith({ big: big as Tool });
    const [out] = await executeToolCalls([call("big")], scope, {
      maxContentBytes: 10
    });
    expect(out!.message.content).toBe("xxxxxxxxxx\n[truncated: 90 more bytes]");
  });

  it("gives tools the task, the hidden store and the episode", async () => {
    const finish = tool({
      description: "Ends.",
      input: z.object({}),
      run: (_a, ctx) => {
        ctx.hidden.set("secret", { k: 1 });
        ctx.episode.end({ reward: 2 });
        return ctx.task;
      }
    });
    const { scope, hidden, signals } = scopeWith({ finish: finish as Tool });
    const [out] = await executeToolCalls([call("finish")], scope);
    expect(out!.message.content).toBe('{"q":1}');
    expect(hidden.get("secret")).toEqual({ k: 1 });
    expect(signals()).toEqual({ reward: 2, ended: true, truncated: false });
  });
});
