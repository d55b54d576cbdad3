import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createEpisodeControl } from "../environment/episode-control";
import { defineState } from "../state/define-state";
import {
  MemoryStateBackend,
  MemoryTranscriptBackend
} from "../state/memory-backend";
import { State } from "../state/state";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryHiddenStore } from "../store/hidden-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { type Tool, tool } from "./define-tool";
import { executeToolCalls } from "./execute";
import { parametersSchema } from "./json-schema";
import type { MergeableState } from "./outputs";

// The tool examples of Haystack's State documentation, through Roost's tools.

const run = async (
  shape: Parameters<typeof defineState>[0],
  tools: Record<string, Tool>,
  calls: [string, Record<string, unknown>][],
  seed: Record<string, unknown> = {}
) => {
  const state = new State(
    defineState(shape),
    new MemoryStateBackend(),
    new MemoryTranscriptBackend()
  );
  for (const [k, v] of Object.entries(seed)) state.set(k, v);
  const out = await executeToolCalls(
    calls.map(([name, args], i) => ({
      id: `call${i}`,
      type: "function" as const,
      function: { name, arguments: JSON.stringify(args) }
    })),
    {
      tools: new Map(
        Object.entries(tools).map(([k, t]) => [k, { ...t, name: k }])
      ),
      environment: createEnvironmentStore(new MemoryStoreBackend()),
      hidden: new MemoryHiddenStore(),
      state: state as unknown as MergeableState,
      task: undefined,
      episode: createEpisodeControl().control
    }
  );
  return { state, out };
};

describe("Haystack State examples through tools", () => {
  it("calculator: outputs_to_state source 'result' → calc_result = 42", async () => {
    const calculator = tool({
      description: "Evaluate basic math expressions",
      input: z.object({ a: z.number(), b: z.number() }),
      outputsToState: { calc_result: { source: "result" } },
      run: ({ a, b }) => ({ result: a + b })
    });
    const { state } = await run(
      { calc_result: { type: z.number().int() } },
      { calculator: calculator as Tool },
      [["calculator", { a: 15, b: 27 }]]
    );
    expect(state.get("calc_result")).toBe(42);
  });

  it("search: inputs_from_state fills user_context from user_name and hides it", async () => {
    const search = tool({
      description: "Search documents",
      input: z.object({ query: z.string(), user_context: z.string() }),
      inputsFromState: { user_name: "user_context" },
      run: ({ query, user_context }) => ({
        results: [`Found results for '${query}' (user: ${user_context})`]
      })
    });
    expect(parametersSchema(search.input, ["user_context"]).required).toEqual([
      "query"
    ]);
    const { out } = await run(
      {
        user_name: { type: z.string() },
        search_results: { type: z.array(z.unknown()) }
      },
      { search: search as Tool },
      [
        ["search", { query: "Python tutorials" }],
        ["search", { query: "x", user_context: "Model" }]
      ],
      { user_name: "Alice" }
    );
    expect(JSON.parse(out[0]!.message.content as string)).toEqual({
      results: ["Found results for 'Python tutorials' (user: Alice)"]
    });
    // The model's own value wins over state.
    expect(out[1]!.message.content).toContain("(user: Model)");
  });

  it("retrieve: three sources map to three state keys", async () => {
    const retrieve = tool({
      description: "Retrieve relevant documents",
      input: z.object({ query: z.string() }),
      outputsToState: {
        documents: { source: "documents" },
        result_count: { source: "count" },
        last_query: { source: "query" }
      },
      run: ({ query }) => ({
        documents: [
          { title: "Doc 1", content: "Content about Python" },
          { title: "Doc 2", content: "More about Python" }
        ],
        count: 2,
        query
      })
    });
    const { state } = await run(
      {
        documents: { type: z.array(z.unknown()) },
        result_count: { type: z.number() },
        last_query: { type: z.string() }
      },
      { retrieve: retrieve as Tool },
      [["retrieve", { query: "Find information about Python" }]]
    );
    expect(state.get("documents")).toHaveLength(2);
    expect(state.get("result_count")).toBe(2);
    expect(state.get("last_query")).toBe("Find information about Python");
  });

  it("get_info: a mapping without source stores the whole result", async () => {
    const info = tool({
      description: "Get user information",
      input: z.object({}),
      outputsToState: { user_info: {} },
      run: () => ({ name: "Alice", email: "alice@example.com", role: "admin" })
    });
    const { state } = await run(
      { user_info: { type: z.record(z.string(), z.string()) } },
      { get_info: info as Tool },
      [["get_info", {}]]
    );
    expect(state.get("user_info")).toEqual({
      name: "Alice",
      email: "alice@example.com",
      role: "admin"
    });
  });

  it("a missing source field is skipped, and a non-object result merges nothing", async () => {
    const partial = tool({
      description: "Partial",
      input: z.object({}),
      outputsToState: { a: { source: "missing" }, b: {} },
      run: () => ({ present: 1 })
    });
    const text = tool({
      description: "Text",
      input: z.object({}),
      outputsToState: { b: {} },
      run: () => "plain"
    });
    const { state, out } = await run(
      {
        a: { type: z.array(z.unknown()).default([]) },
        b: { type: z.unknown() }
      },
      { partial: partial as Tool, text: text as Tool },
      [
        ["partial", {}],
        ["text", {}]
      ]
    );
    expect(out.every((o) => !o.message.is_error)).toBe(true);
    expect(state.get("a")).toEqual([]);
    expect(state.get("b")).toEqual({ present: 1 });
  });

  it("process: tools chain through state (read documents, write final_docs/final_count)", async () => {
    const processTool = tool({
      description: "Process retrieved documents",
      input: z.object({
        max_results: z.number().int(),
        documents: z.array(z.unknown())
      }),
      inputsFromState: { documents: "documents" },
      outputsToState: {
        final_docs: { source: "processed_docs" },
        final_count: { source: "processed_count" }
      },
      run: ({ documents, max_results }) => {
        const processed = documents.slice(0, max_results);
        return { processed_docs: processed, processed_count: processed.length };
      }
    });
    const { state } = await run(
      {
        documents: { type: z.array(z.unknown()) },
        final_docs: { type: z.array(z.unknown()) },
        final_count: { type: z.number() }
      },
      { process: processTool as Tool },
      [["process", { max_results: 3 }]],
      { documents: [1, 2, 3, 4, 5] }
    );
    expect(state.get("final_docs")).toEqual([1, 2, 3]);
    expect(state.get("final_count")).toBe(3);
  });

  it("a per-mapping handler overrides the key's handler", async () => {
    const t = tool({
      description: "Names",
      input: z.object({ n: z.string() }),
      outputsToState: {
        name: {
          source: "n",
          handler: (cur, inc) => (cur ? `${cur}-${inc}` : inc)
        }
      },
      run: ({ n }) => ({ n })
    });
    const { state } = await run(
      { name: { type: z.string() } },
      { t: t as Tool },
      [["t", { n: "Bob" }]],
      { name: "Alice" }
    );
    expect(state.get("name")).toBe("Alice-Bob");
  });
});
