// The package's own name, as a user's project imports it.
import {
  createLocalSession,
  defineEnvironment,
  result,
  scriptedModel,
  tool,
  toolCalls
} from "roost-edge/core";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { calculator } from "../../examples/calculator/index";
import { counter } from "../../examples/counter/index";
import { guess } from "../../examples/own-worker/guess";

// Plain Node has no `cloudflare:workers`: these imports fail outright if
// anything in the core reaches for it.
describe("roost-edge/core in plain Node", () => {
  it("runs an environment of the examples in memory", async () => {
    const s = createLocalSession(guess);
    await s.reset({ task: { seed: 3 } });
    const secret = s.parts.hidden.get<number>("secret")!;
    const out = await s.step(
      toolCalls({ name: "guess", arguments: { n: secret } })
    );
    expect(out).toMatchObject({ reward: 1, done: true });
  });

  it("counts to the target with the counter example", async () => {
    const s = createLocalSession(counter);
    await s.reset({ task: { target: 2 } });
    await s.step(toolCalls({ name: "incr", arguments: {} }));
    const out = await s.step(toolCalls({ name: "incr", arguments: {} }));
    expect(out).toMatchObject({ done: true });
  });

  it("grades a calculator episode from its dataset", async () => {
    const s = createLocalSession(calculator);
    const { observations } = await s.reset({ task_index: 0 });
    expect(String(observations[0]?.content)).toContain("submit_answer");
    const wrong = await s.step(
      toolCalls({
        name: "submit_answer",
        arguments: { answer: "not a number" }
      })
    );
    expect(wrong.observations[0]).toMatchObject({ is_error: true });
  });

  it("defines an environment whose tool results land in the store", async () => {
    const notes = defineEnvironment({
      name: "notes",
      description: "Keeps notes.",
      tools: {
        note: tool({
          description: "Stores a note.",
          input: z.object({ text: z.string() }),
          run: async function* ({ text }) {
            yield result({ name: "notes", objects: [{ text }] });
            return "noted";
          }
        })
      },
      reset: () => [{ role: "user", content: "Take notes." }]
    });
    const s = createLocalSession(notes);
    await s.reset();
    await s.step(toolCalls({ name: "note", arguments: { text: "hi" } }));
    expect(s.parts.environment.llmView()).toContain("hi");
  });

  it("runs a decision tree in memory with the same loop a session drives", async () => {
    const shop = defineEnvironment({
      name: "shop",
      description: "Finds products.",
      tools: {
        query: tool({
          description: "Search the products.",
          input: z.object({ q: z.string() }),
          run: async function* ({ q }) {
            yield result({
              name: "products",
              objects: [{ name: `${q} shoe` }]
            });
            return `found a ${q} shoe`;
          }
        })
      },
      tree: {
        branches: [
          {
            id: "search",
            description: "Look products up.",
            instruction: "Query.",
            tools: ["query"]
          }
        ]
      },
      reset: () => "Ready."
    });
    const model = scriptedModel([
      { tool: "search", message: "Searching." },
      { tool: "query", inputs: { q: "red" } },
      { tool: "text_response", inputs: { text: "One red shoe." } }
    ]);
    const decisions: string[] = [];
    const s = createLocalSession(shop);
    const run = await s.run("red shoes?", {
      model,
      onEvent: (e) => {
        if (e.type === "tree.decision")
          decisions.push(String(e.payload.option));
      }
    });
    expect(run).toMatchObject({
      state: "completed",
      outcome: "answered",
      text: "One red shoe.",
      passes: 2
    });
    expect(decisions).toEqual(["search", "query", "text_response"]);
    expect(
      s.parts.environment.find("query", "products")[0]?.objects[0]
    ).toMatchObject({ name: "red shoe" });
    // The assistant's turn merges what it said, as Elysia's history does.
    expect(run.history).toEqual([
      { role: "user", content: "red shoes?" },
      { role: "assistant", content: "Searching. One red shoe." }
    ]);
  });
});
