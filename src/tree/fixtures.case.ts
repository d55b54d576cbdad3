/** @module A small tree and its tools, shared by the tree's and the runner's tests. */

import * as z from "zod";
import { createEnvironmentStore } from "../store/environment-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { readOnlyStore } from "../store/reader";
import type { EnvironmentStore } from "../store/types";
import type { Tool } from "../tools/define-tool";
import { tool } from "../tools/define-tool";
import type { TreeConfig, TreeData } from "./types";

/** A fresh in-memory store, to put into tree data with `treeDataOver`. */
export const memoryStore = (): EnvironmentStore =>
  createEnvironmentStore(new MemoryStoreBackend());

/** Tree data whose environment is `store` (read-only, with its view). */
export const treeDataOver = (
  store: EnvironmentStore,
  over: Partial<TreeData> = {}
): TreeData =>
  treeData({
    environment: readOnlyStore(store),
    environmentView: store.llmView(),
    ...over
  });

export const treeData = (over: Partial<TreeData> = {}): TreeData => ({
  userPrompt: "find frogs",
  conversationHistory: [],
  atlas: {
    style: "terse",
    agentDescription: "a frog finder",
    endGoal: "frogs found"
  },
  environment: readOnlyStore(memoryStore()),
  environmentView: "{}",
  tasksCompleted: [],
  errors: {},
  pass: 1,
  recursionLimit: 5,
  ...over
});

export const query = tool({
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
  available: (tree) =>
    tree.environment.isEmpty() ? "Only once something was retrieved." : true,
  run: () => "summary"
});
const greet = tool({
  description: "Greet the user.",
  input: z.object({ name: z.string() }),
  runIf: (data) =>
    data.conversationHistory.length === 0 ? { inputs: { name: "you" } } : false,
  run: () => "hi"
});

export const tools = new Map<string, Tool>([
  ["query", { ...(query as unknown as Tool), name: "query" }],
  ["summarize", { ...(summarize as unknown as Tool), name: "summarize" }],
  ["greet", { ...(greet as unknown as Tool), name: "greet" }]
]);

export const config: TreeConfig = {
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
