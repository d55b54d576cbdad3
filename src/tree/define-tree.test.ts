import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import { defineEnvironment } from "../environment/define-environment";
import type { Tool } from "../tools/define-tool";
import { tool } from "../tools/define-tool";
import {
  CHECK_TIMEOUT_MS,
  DEFAULT_ROOT_INSTRUCTION,
  optionsAt,
  resolveTree,
  runIfTools,
  TEXT_RESPONSE,
  TEXT_RESPONSE_INPUTS,
  type TreeConfigSchema
} from "./define-tree";
import { scriptedModel } from "./scripted-model";
import type { TreeConfig, TreeData } from "./types";

const treeData = (over: Partial<TreeData> = {}): TreeData => ({
  userPrompt: "find frogs",
  conversationHistory: [],
  atlas: {
    style: "terse",
    agentDescription: "a frog finder",
    endGoal: "frogs found"
  },
  environment: "{}",
  tasksCompleted: [],
  errors: {},
  pass: 1,
  recursionLimit: 5,
  ...over
});

const query = tool({
  description: "Query the frog database.",
  input: z.object({
    q: z.string().describe("What to look for."),
    user: z.string()
  }),
  inputsFromState: { user: "user" },
  run: () => "rows"
});
const summarize = tool({
  description: "Summarize what was found.",
  input: z.object({}),
  end: true,
  // Nothing to summarize until something was retrieved.
  available: (data) =>
    data.environment === "{}" ? "Only once something was retrieved." : true,
  run: () => "summary"
});
const greet = tool({
  description: "Greet the user.",
  input: z.object({ name: z.string() }),
  runIf: (data) =>
    data.conversationHistory.length === 0 ? { inputs: { name: "you" } } : false,
  run: () => "hi"
});

const tools = new Map<string, Tool>([
  ["query", { ...(query as unknown as Tool), name: "query" }],
  ["summarize", { ...(summarize as unknown as Tool), name: "summarize" }],
  ["greet", { ...(greet as unknown as Tool), name: "greet" }]
]);

const config: TreeConfig = {
  atlas: { style: "terse" },
  tools: ["summarize"],
  branches: [
    {
      id: "search",
      description: "Look things up.",
      instruction: "Pick a way to search.",
      tools: ["query", "greet"],
      branches: [
        {
          id: "deep",
          description: "Search harder.",
          instruction: "Only query.",
          tools: ["query"]
        }
      ]
    }
  ]
};

describe("resolveTree", () => {
  it("fills defaults and indexes every node by id", () => {
    const tree = resolveTree(config, tools);
    expect(tree.atlas).toEqual({
      style: "terse",
      agentDescription: "No description provided.",
      endGoal: "No end goal provided."
    });
    expect(tree.recursionLimit).toBe(5);
    expect(tree.textResponse).toBe(true);
    expect(tree.root).toMatchObject({
      id: "root",
      instruction: DEFAULT_ROOT_INSTRUCTION,
      tools: ["summarize"]
    });
    expect(tree.root.branches.map((b) => b.id)).toEqual(["search"]);
    expect(tree.node("root")).toBe(tree.root);
    expect(tree.node("deep")).toEqual({
      id: "deep",
      description: "Search harder.",
      instruction: "Only query.",
      tools: ["query"],
      branches: []
    });
    expect(tree.node("nowhere")).toBeUndefined();
  });

  it("keeps the environment's own model and rejects what is not one", () => {
    const model = scriptedModel([]);
    expect(resolveTree({ model }, tools).model).toBe(model);
    expect(resolveTree({}, tools)).not.toHaveProperty("model");
    rejects({ model: { name: "x" } }, /model: Expected a decision model/);
  });

  it("gives an empty atlas its defaults too", () => {
    expect(resolveTree({}, tools).atlas).toEqual({
      style: "No style provided.",
      agentDescription: "No description provided.",
      endGoal: "No end goal provided."
    });
  });

  it("accepts exactly what TreeConfig describes", () => {
    expectTypeOf<TreeConfig>().toExtend<z.input<typeof TreeConfigSchema>>();
  });

  const rejects = (cfg: unknown, message: RegExp) => {
    let thrown: unknown;
    try {
      resolveTree(cfg, tools);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "invalid_request" });
    expect((thrown as Error).message).toMatch(message);
  };

  it("rejects unknown tools, naming the branch and the known tools", () => {
    rejects(
      {
        branches: [
          { id: "b", description: "d", instruction: "i", tools: ["qury"] }
        ]
      },
      /Branch "b" lists unknown tool "qury"\. Tools: query, summarize, greet\./
    );
  });

  it("rejects duplicate ids and ids that clash with tools or built-ins", () => {
    const branch = (id: string) => ({
      id,
      description: "d",
      instruction: "i",
      tools: ["query"]
    });
    rejects(
      { branches: [branch("a"), { ...branch("b"), branches: [branch("a")] }] },
      /"a" is used twice/
    );
    rejects({ branches: [branch("query")] }, /also a tool name/);
    rejects({ branches: [branch(TEXT_RESPONSE)] }, /reserved/);
    rejects({ branches: [branch("root")] }, /reserved/);
  });

  it("rejects a tool listed twice at one node but allows it at two nodes", () => {
    rejects({ tools: ["query", "query"] }, /root lists tool "query" twice/);
    expect(() => resolveTree(config, tools)).not.toThrow();
  });

  it("rejects bad shapes, names and limits with the field's path", () => {
    rejects({ recursionLimit: 0 }, /recursionLimit/);
    rejects({ recursionLimit: 51 }, /recursionLimit/);
    rejects({ recursionLimit: 2.5 }, /recursionLimit/);
    rejects({ tools: ["bad name"] }, /tools\.0/);
    rejects({ extra: true }, /extra/);
    rejects(
      { branches: [{ id: "b", description: "d", instruction: "i" }] },
      /Branch "b" offers nothing/
    );
    rejects({ textResponse: false }, /root offers nothing to choose/);
  });

  it("fails defineEnvironment when the tree is bad", () => {
    const define = (tree: TreeConfig) =>
      defineEnvironment({
        name: "frogs",
        description: "Find frogs.",
        tools: { query },
        tree,
        reset: () => "go"
      });
    expect(() => define({ tools: ["nope"] })).toThrow(/unknown tool "nope"/);
    expect(define({ tools: ["query"] }).tree?.root.tools).toEqual(["query"]);
  });
});

describe("optionsAt", () => {
  const tree = resolveTree(config, tools);

  it("offers tools, then branches, then text_response at the root", async () => {
    const { options, unavailable } = await optionsAt(
      tree,
      tree.root,
      tools,
      treeData({ environment: '{"query":[1]}' })
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
        end: false
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
        `available() failed: it did not answer within ${CHECK_TIMEOUT_MS} ms`
      );
    } finally {
      vi.useRealTimers();
    }
  });
});
