import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import { defineEnvironment } from "../environment/define-environment";
import { scriptedModel } from "../runner/scripted-model";
import {
  DEFAULT_ROOT_INSTRUCTION,
  followUpInstruction,
  resolveTree,
  TEXT_RESPONSE,
  type TreeConfigSchema
} from "./define-tree";
import { config, query, tools } from "./fixtures.case";
import type { TreeConfig } from "./types";

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
      kind: "branch",
      description: "Search harder.",
      instruction: "Only query.",
      tools: ["query"],
      branches: [],
      followUps: {},
      leadsTo: { query: {} }
    });
    // What a branch leads to is worked out once, here, nested by branch.
    expect(tree.node("search")!.leadsTo).toEqual({
      query: {},
      greet: {},
      deep: { query: {} }
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
    expectTypeOf<TreeConfig>().toExtend<
      z.input<ReturnType<typeof TreeConfigSchema>>
    >();
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

  describe("follow-up tools", () => {
    // Elysia: add_tool(summarize, branch_id="search", from_tool_ids=["query"]),
    // then add_tool(greet, ..., from_tool_ids=["query", "summarize"]).
    const chained: TreeConfig = {
      branches: [
        {
          id: "search",
          description: "Look things up.",
          instruction: "Pick a way to search.",
          tools: [
            {
              tool: "query",
              followUps: [{ tool: "summarize", followUps: ["greet"] }]
            },
            "greet"
          ]
        }
      ]
    };

    it("makes a node <node>.<tool> per tool with follow-ups, chains nested", () => {
      const tree = resolveTree(chained, tools);
      const search = tree.node("search")!;
      // The branch itself offers its own tools only.
      expect(search.tools).toEqual(["query", "greet"]);
      expect(search.followUps.query).toBe(tree.node("search.query"));
      expect(tree.node("search.query")).toMatchObject({
        id: "search.query",
        kind: "followUps",
        tools: ["summarize"],
        instruction: followUpInstruction("query")
      });
      expect(tree.node("search.query.summarize")).toMatchObject({
        kind: "followUps",
        tools: ["greet"],
        followUps: {}
      });
      expect(search.followUps.greet).toBeUndefined();
      // Future tools show follow-ups nested under their tool.
      expect(tree.root.leadsTo).toEqual({
        search: { query: { summarize: { greet: {} } }, greet: {} }
      });
    });

    it("takes an instruction for the follow-up node, at the root too", () => {
      const tree = resolveTree(
        {
          tools: [
            {
              tool: "query",
              followUps: ["summarize"],
              instruction: "Summarize if there were rows."
            }
          ]
        },
        tools
      );
      expect(tree.root.followUps.query?.instruction).toBe(
        "Summarize if there were rows."
      );
      expect(tree.node("root.query")?.tools).toEqual(["summarize"]);
    });

    it("rejects unknown follow-ups, duplicates and cycles", () => {
      const at = (entry: unknown) => ({
        branches: [
          { id: "b", description: "d", instruction: "i", tools: [entry] }
        ]
      });
      rejects(
        at({ tool: "query", followUps: ["sumarize"] }),
        /The follow-ups of "query" at b lists unknown tool "sumarize"\. Tools: query, summarize, greet\./
      );
      rejects(
        at({ tool: "qury", followUps: ["summarize"] }),
        /Branch "b" lists unknown tool "qury"/
      );
      rejects(
        at({ tool: "query", followUps: ["greet", "greet"] }),
        /The follow-ups of "query" at b lists tool "greet" twice/
      );
      rejects(
        at({ tool: "query", followUps: ["query"] }),
        /makes a cycle \(query -> query\)/
      );
      rejects(
        at({
          tool: "query",
          followUps: [{ tool: "summarize", followUps: ["greet", "query"] }]
        }),
        /The follow-ups of "query -> summarize" at b include "query", which makes a cycle \(query -> summarize -> query\)/
      );
      rejects(
        at({ tool: "query", followUps: [], extra: 1 }),
        /Unrecognized key|extra/
      );
    });
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
