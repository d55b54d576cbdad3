import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  defineEnvironment,
  type Environment
} from "../environment/define-environment";
import { toolCalls } from "../messages/build";
import { error, result } from "../store/result";
import type { DecisionModel, DecisionRequest } from "../tree/types";
import { createLocalSession } from "./local-session";
import { type PassEnd, type RunProgress, runPass } from "./loop";
import { type Script, scriptedModel } from "./scripted-model";

// The loop over an in-memory session: the same runPass a Durable Object
// drives, with the session's parts in memory instead of SQLite.

interface Drive {
  end: PassEnd;
  progress: RunProgress;
  events: { type: string; data: Record<string, unknown> }[];
  /** Every request the model was asked, in order. */
  asked: DecisionRequest[];
  session: ReturnType<typeof createLocalSession>;
}

const drive = async (
  env: Environment,
  script: Script,
  prompt = "find frogs"
): Promise<Drive> => {
  const session = createLocalSession(env);
  await session.reset();
  const asked: DecisionRequest[] = [];
  const scripted = scriptedModel(script);
  const model: DecisionModel = {
    ...scripted,
    decide: (request, options) => {
      asked.push(request);
      return scripted.decide(request, options);
    }
  };
  const events: Drive["events"] = [];
  let progress: RunProgress = {
    runId: "run_1",
    prompt,
    passes: 0,
    decisions: 0,
    tasks: [],
    errors: {},
    history: [{ role: "user", content: prompt }]
  };
  for (let i = 0; i < 12; i++) {
    const result = await runPass({
      env,
      tree: env.tree!,
      parts: session.parts,
      task: undefined,
      model,
      progress,
      emit: (type, data) =>
        events.push({ type, data: data as Record<string, unknown> }),
      execute: {}
    });
    progress = result.progress;
    if (result.end)
      return { end: result.end, progress, events, asked, session };
  }
  throw new Error("the run did not end");
};

const offered = (request: DecisionRequest) =>
  request.options.map((o) => o.name);

describe("tree data for tools and rules", () => {
  // Elysia's idioms, as its documentation writes them, in TypeScript.
  const library = defineEnvironment({
    name: "library",
    description: "Frogs, stored and summarised.",
    tools: (tool) => ({
      query: tool({
        description: "Find frogs.",
        input: z.object({ q: z.string() }),
        run: async function* ({ q }) {
          yield result({ name: "frogs", objects: [{ name: `${q} frog` }] });
          return "found";
        }
      }),
      summarise: tool({
        description: "Summarise what is stored.",
        input: z.object({}),
        end: true,
        // not tree_data.environment.is_empty()
        available: (tree) => !tree.environment.isEmpty(),
        run: (_args, ctx) =>
          `${ctx.environment.find("query", "frogs").length} frog entries`
      }),
      count: tool({
        description:
          "Counts the stored frogs; runs by itself once there are some.",
        input: z.object({}),
        runIf: (tree) =>
          tree.environment.has("query", "frogs") &&
          tree.environment.find("query", "frogs").length > 0 &&
          !tree.environment.has("count", "counts"),
        run: async function* (_args, ctx) {
          const frogs = ctx.environment.find("query", "frogs");
          yield result({ name: "counts", objects: [{ frogs: frogs.length }] });
          return "counted";
        }
      }),
      broken: tool({
        description: "Always fails, recoverably.",
        input: z.object({}),
        run: async function* () {
          yield error({ feedback: "It never works." });
        }
      }),
      inspect: tool({
        description: "Reports what the tree shows a tool.",
        input: z.object({}),
        end: true,
        run: (_args, ctx) =>
          JSON.stringify(
            ctx.tree === undefined
              ? { tree: "absent" }
              : {
                  prompt: ctx.tree.userPrompt,
                  history: ctx.tree.conversationHistory.map((m) => m.role),
                  tasks: ctx.tree.tasksCompleted
                    .at(-1)
                    ?.tasks.map((t) => t.task),
                  errors: Object.keys(ctx.tree.errors),
                  agent: ctx.tree.atlas.agentDescription,
                  stored: ctx.tree.environment.keys().map((k) => k.name),
                  // Made when read: it must still be the store's view.
                  view: ctx.tree.environmentView.includes("tree frog")
                }
          )
      })
    }),
    tree: {
      atlas: { agentDescription: "A frog librarian." },
      tools: ["query", "summarise", "count", "broken", "inspect"]
    },
    reset: () => "Ready."
  });

  it("offers a tool only once the store holds something (available)", async () => {
    const r = await drive(library, [
      { tool: "query", inputs: { q: "tree" } },
      { tool: "summarise", end: true }
    ]);
    expect(offered(r.asked[0]!)).not.toContain("summarise");
    expect(r.asked[0]!.unavailable.map((u) => u.name)).toEqual(["summarise"]);
    expect(offered(r.asked[1]!)).toContain("summarise");
    expect(r.end).toEqual({ outcome: "ended", text: "1 frog entries" });
  });

  it("runs a runIf tool when the store has what it looks for, once", async () => {
    const r = await drive(library, [
      { tool: "query", inputs: { q: "tree" } },
      { tool: "summarise", end: true }
    ]);
    // Pass 1 found frogs; pass 2 counted them before deciding.
    expect(
      r.progress.tasks[0]!.tasks.map((t) => `${t.pass}:${t.task}`)
    ).toEqual(["1:query", "2:count", "2:summarise"]);
    expect(r.session.parts.environment.find("count", "counts", 0)).toEqual(
      expect.objectContaining({
        objects: [expect.objectContaining({ frogs: 1 })]
      })
    );
  });

  it("gives a tool the tree data in ctx.tree during a run", async () => {
    const r = await drive(
      library,
      [
        { tool: "broken" },
        { tool: "query", inputs: { q: "tree" } },
        { tool: "inspect", end: true }
      ],
      "what do you see?"
    );
    expect(JSON.parse(r.end.text)).toEqual({
      prompt: "what do you see?",
      history: ["user"],
      tasks: ["broken", "query", "count", "inspect"],
      errors: ["broken"],
      agent: "A frog librarian.",
      stored: ["frogs", "counts"],
      view: true
    });
  });

  it("gives the model the store's view string, and rules the store itself", async () => {
    const r = await drive(library, [
      { tool: "query", inputs: { q: "tree" } },
      { tool: "summarise", end: true }
    ]);
    const second = r.asked[1]!.treeData;
    expect(typeof second.environmentView).toBe("string");
    expect(second.environmentView).toContain("tree frog");
    expect(second.environment.isEmpty()).toBe(false);
  });

  it("leaves ctx.tree out of a plain step", async () => {
    const session = createLocalSession(library);
    await session.reset();
    const outcome = await session.step(toolCalls({ name: "inspect" }));
    expect(outcome.observations[0]).toMatchObject({
      role: "tool",
      content: JSON.stringify({ tree: "absent" })
    });
  });
});

describe("follow-up tools", () => {
  const shelf = defineEnvironment({
    name: "shelf",
    description: "Frogs with follow-up tools.",
    tools: (tool) => ({
      query: tool({
        description: "Find frogs; an empty query fails.",
        input: z.object({ q: z.string() }),
        end: true,
        run: async function* ({ q }) {
          if (q === "") {
            yield error({ feedback: "Say what to look for." });
            return "failed";
          }
          yield result({ name: "frogs", objects: [{ name: `${q} frog` }] });
          return "found 1";
        }
      }),
      check_output: tool({
        description: "Checks what query found.",
        input: z.object({}),
        run: (_args, ctx) =>
          `checked ${ctx.environment.find("query", "frogs").length}`
      }),
      polish: tool({
        description: "Polishes the checked output.",
        input: z.object({ style: z.string() }),
        run: ({ style }) => `polished ${style}`
      }),
      aggregate: tool({
        description: "Counts frogs.",
        input: z.object({}),
        run: () => "aggregated"
      }),
      note: tool({
        description: "Notes an aggregate; only ever run by its rule.",
        input: z.object({}),
        available: () => "Only run by its rule.",
        runIf: (tree) => tree.userPrompt === "notes",
        run: () => "noted"
      })
    }),
    tree: {
      tools: [{ tool: "aggregate", followUps: ["note"] }],
      branches: [
        {
          id: "search",
          description: "Look things up.",
          instruction: "Pick a search.",
          tools: [
            {
              tool: "query",
              followUps: [{ tool: "check_output", followUps: ["polish"] }]
            },
            "aggregate"
          ]
        }
      ]
    },
    reset: () => "Ready."
  });

  const decisions = (r: Drive) =>
    r.events
      .filter((e) => e.type === "tree.decision")
      .map((e) => {
        const p = e.data.payload as {
          pass: number;
          node: string;
          option: string;
        };
        return `${p.pass}:${p.node}->${p.option}`;
      });

  const tasks = (r: Drive) =>
    r.progress.tasks
      .at(-1)!
      .tasks.map((t) => `${t.pass}:${t.task}${t.error ? "!" : ""}`);

  it("continues the pass at <branch>.<tool> after the tool ran, along a chain", async () => {
    const r = await drive(shelf, [
      { tool: "search" },
      { tool: "query", inputs: { q: "tree" } },
      // check_output is the only follow-up and needs no inputs: no model call.
      { tool: "polish", inputs: { style: "brief" } },
      { tool: "text_response", inputs: { text: "done" } }
    ]);
    expect(decisions(r)).toEqual([
      "1:root->search",
      "1:search->query",
      "1:search.query->check_output",
      "1:search.query.check_output->polish",
      "2:root->text_response"
    ]);
    expect(r.asked.map((q) => q.node)).toEqual([
      "root",
      "search",
      "search.query.check_output",
      "root"
    ]);
    // Not offered at the branch, nor at the root of the next pass.
    expect(offered(r.asked[1]!)).toEqual(["query", "aggregate"]);
    expect(offered(r.asked[2]!)).toEqual(["polish"]);
    expect(offered(r.asked[3]!)).toEqual([
      "aggregate",
      "search",
      "text_response"
    ]);
    expect(
      r.asked[0]!.options.find((o) => o.name === "search")?.leadsTo
    ).toEqual({
      query: { check_output: { polish: {} } },
      aggregate: {}
    });
    expect(tasks(r)).toEqual([
      "1:search",
      "1:query",
      "1:check_output",
      "1:polish",
      "2:text_response"
    ]);
    expect(r.end).toEqual({ outcome: "answered", text: "done" });
  });

  it("offers no follow-ups after the tool failed: the next pass starts at the root", async () => {
    const r = await drive(shelf, [
      { tool: "search" },
      { tool: "query", inputs: { q: "" } },
      { tool: "search" },
      { tool: "query", inputs: { q: "tree" } },
      { tool: "polish", inputs: { style: "long" } },
      { tool: "text_response", inputs: { text: "done" } }
    ]);
    expect(decisions(r)).toEqual([
      "1:root->search",
      "1:search->query",
      "2:root->search",
      "2:search->query",
      "2:search.query->check_output",
      "2:search.query.check_output->polish",
      "3:root->text_response"
    ]);
    expect(tasks(r)).toContain("1:query!");
  });

  it("ends the run at a tool chosen to end it, before its follow-ups", async () => {
    const r = await drive(shelf, [
      { tool: "search" },
      { tool: "query", inputs: { q: "tree" }, end: true }
    ]);
    expect(r.end).toEqual({ outcome: "ended", text: "found 1" });
    expect(decisions(r)).toEqual(["1:root->search", "1:search->query"]);
  });

  it("applies runIf and available at a follow-up node, and ends the pass when none is available", async () => {
    const script = [
      { tool: "aggregate" },
      { tool: "text_response", inputs: { text: "done" } }
    ];
    const noted = await drive(shelf, script, "notes");
    // note ran by its rule at root.aggregate, then could not be picked.
    expect(tasks(noted)).toEqual(["1:aggregate", "1:note", "2:text_response"]);
    const quiet = await drive(shelf, script, "quiet");
    expect(tasks(quiet)).toEqual(["1:aggregate", "2:text_response"]);
    expect(quiet.asked.map((q) => q.node)).toEqual(["root", "root"]);
    expect(quiet.end).toEqual({ outcome: "answered", text: "done" });
  });
});
