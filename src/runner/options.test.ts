import { describe, expect, it, vi } from "vitest";
import type { EnvironmentStore } from "../store/types";
import type { Tool } from "../tools/define-tool";
import {
  resolveTree,
  TEXT_RESPONSE,
  TEXT_RESPONSE_INPUTS
} from "../tree/define-tree";
import {
  config,
  memoryStore,
  query,
  tools,
  treeData,
  treeDataOver
} from "../tree/fixtures.case";
import type { TreeData } from "../tree/types";
import { CHECK_TIMEOUT_MS, optionsAt, runIfTools } from "./options";

describe("optionsAt", () => {
  const tree = resolveTree(config, tools);

  it("offers tools, then branches, then text_response at the root", async () => {
    const store = memoryStore();
    store.addObjects("query", "frogs", [{ name: "Kermit" }]);
    const { options, unavailable } = await optionsAt(
      tree,
      tree.root,
      tools,
      treeDataOver(store)
    );
    expect(options).toEqual([
      {
        name: "summarize",
        kind: "tool",
        description: "Summarize what was found.",
        inputs: { type: "object", properties: {}, required: [] },
        end: true
      },
      {
        name: "search",
        kind: "branch",
        description: "Look things up.",
        end: false,
        // Elysia's "future tools": what the branch leads to, nested.
        leadsTo: { query: {}, greet: {}, deep: { query: {} } }
      },
      {
        name: TEXT_RESPONSE,
        kind: "text",
        description: expect.any(String),
        inputs: TEXT_RESPONSE_INPUTS,
        end: true
      }
    ]);
    expect(unavailable).toEqual([]);
  });

  it("lists a tool apart with its reason when it is not available", async () => {
    const { options, unavailable } = await optionsAt(
      tree,
      tree.root,
      tools,
      treeData()
    );
    expect(options.map((o) => o.name)).toEqual(["search", TEXT_RESPONSE]);
    expect(unavailable).toEqual([
      {
        name: "summarize",
        description: "Summarize what was found.",
        reason: "Only once something was retrieved."
      }
    ]);
  });

  it("hides state-filled parameters and offers no text_response below the root", async () => {
    const search = tree.node("search")!;
    const { options } = await optionsAt(tree, search, tools, treeData());
    expect(options.map((o) => [o.name, o.kind])).toEqual([
      ["query", "tool"],
      ["greet", "tool"],
      ["deep", "branch"]
    ]);
    expect(options[0]!.inputs).toEqual({
      type: "object",
      properties: { q: { type: "string", description: "What to look for." } },
      required: ["q"]
    });
    expect(options[0]!.end).toBe(false);
  });

  it("drops text_response when the tree turns it off", async () => {
    const quiet = resolveTree({ tools: ["query"], textResponse: false }, tools);
    const { options } = await optionsAt(quiet, quiet.root, tools, treeData());
    expect(options.map((o) => o.name)).toEqual(["query"]);
  });

  it("awaits async predicates and reports false or throws as reasons", async () => {
    const probe = (available: Tool["available"]): Tool => ({
      ...(query as unknown as Tool),
      available
    });
    const odd = new Map<string, Tool>([
      ["a", probe(async () => true)],
      ["b", probe(async () => false)],
      [
        "c",
        probe(() => {
          throw new Error("no database");
        })
      ],
      ["d", probe(async () => "Needs a login.")]
    ]);
    const t = resolveTree({ tools: ["a", "b", "c", "d"] }, odd);
    const { options, unavailable } = await optionsAt(
      t,
      t.root,
      odd,
      treeData()
    );
    expect(options.map((o) => o.name)).toEqual(["a", TEXT_RESPONSE]);
    expect(unavailable.map((u) => [u.name, u.reason])).toEqual([
      ["b", "No reason provided."],
      ["c", "available() failed: no database"],
      ["d", "Needs a login."]
    ]);
  });

  it("shows predicates a copy, so they cannot change the run's data", async () => {
    const meddler: Tool = {
      ...(query as unknown as Tool),
      available: (data) => {
        data.errors.query = ["injected"];
        return true;
      }
    };
    const m = new Map([["query", meddler]]);
    const t = resolveTree({ tools: ["query"] }, m);
    const data = treeData();
    await optionsAt(t, t.root, m, data);
    expect(data.errors).toEqual({});
  });

  it("gives predicates the store to read, with nothing to write it by", async () => {
    const store = memoryStore();
    store.addObjects("query", "frogs", [{ name: "Kermit" }]);
    const methods: string[][] = [];
    const writer = (tree: TreeData) => {
      methods.push(Object.keys(tree.environment));
      // A cast cannot reach a write the view does not have.
      (tree.environment as unknown as EnvironmentStore).remove(
        "query",
        "frogs"
      );
      return true;
    };
    const m = new Map<string, Tool>([
      [
        "query",
        { ...(query as unknown as Tool), available: writer, runIf: writer }
      ]
    ]);
    const t = resolveTree({ tools: ["query"] }, m);
    const data = treeDataOver(store);
    expect(await runIfTools(t.root, m, data)).toEqual([]);
    const { unavailable } = await optionsAt(t, t.root, m, data);
    expect(unavailable[0]?.reason).toMatch(/^available\(\) failed: /);
    expect(store.find("query", "frogs")).toHaveLength(1);
    for (const seen of methods) {
      expect(seen).toContain("isEmpty");
      expect(seen).not.toContain("add");
      expect(seen).not.toContain("remove");
      expect(seen).not.toContain("replace");
    }
    expect(methods).toHaveLength(2);
  });
});

describe("runIfTools", () => {
  const tree = resolveTree(config, tools);

  it("returns the tools whose rule fires, with their inputs", async () => {
    const search = tree.node("search")!;
    expect(await runIfTools(search, tools, treeData())).toEqual([
      { tool: "greet", inputs: { name: "you" } }
    ]);
    const later = treeData({
      conversationHistory: [{ role: "user", content: "hi" }]
    });
    expect(await runIfTools(search, tools, later)).toEqual([]);
  });

  it("treats true as empty inputs and a throwing rule as false", async () => {
    const rule = (runIf: Tool["runIf"]): Tool => ({
      ...(query as unknown as Tool),
      runIf
    });
    const m = new Map<string, Tool>([
      ["a", rule(async () => true)],
      [
        "b",
        rule(() => {
          throw new Error("boom");
        })
      ],
      ["c", rule(() => ({ inputs: { q: "x" } }))]
    ]);
    const t = resolveTree({ tools: ["a", "b", "c"] }, m);
    expect(await runIfTools(t.root, m, treeData())).toEqual([
      { tool: "a", inputs: {} },
      { tool: "c", inputs: { q: "x" } }
    ]);
  });

  it("gives up on checks that never answer, after CHECK_TIMEOUT_MS", async () => {
    vi.useFakeTimers();
    try {
      const never = () => new Promise<never>(() => {});
      const stuck: Tool = {
        ...(query as unknown as Tool),
        available: never,
        runIf: never
      };
      const m = new Map([["stuck", stuck]]);
      const t = resolveTree({ tools: ["stuck"] }, m);
      const ran = runIfTools(t.root, m, treeData());
      const offered = optionsAt(t, t.root, m, treeData());
      await vi.advanceTimersByTimeAsync(CHECK_TIMEOUT_MS);
      expect(await ran).toEqual([]);
      const { unavailable } = await offered;
      expect(unavailable[0]?.reason).toBe(
        `available() failed: it did not finish within ${CHECK_TIMEOUT_MS} ms`
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
