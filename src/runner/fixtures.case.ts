/** @module Tree data, options and decisions shared by the model adapters' tests. */

import { createEnvironmentStore } from "../store/environment-store";
import { MemoryStoreBackend } from "../store/memory-backend";
import { readOnlyStore } from "../store/reader";
import type {
  Decision,
  DecisionRequest,
  TextRequest,
  TreeData,
  TreeOption
} from "../tree/types";

const papers = createEnvironmentStore(new MemoryStoreBackend());
papers.addObjects("search", "papers", [{ title: "Otters" }]);

export const treeData = (over: Partial<TreeData> = {}): TreeData => ({
  userPrompt: "How many papers mention otters?",
  conversationHistory: [
    { role: "user", content: "Hi there" },
    { role: "assistant", content: "Hello! Ask me about papers." }
  ],
  atlas: {
    style: "Plain and brief.",
    agentDescription: "A librarian for a paper archive.",
    endGoal: "Answer with counts from the archive."
  },
  environment: readOnlyStore(papers),
  environmentView: '{"search":{"papers":[{"title":"Otters"}]}}',
  tasksCompleted: [
    {
      prompt: "How many papers mention otters?",
      tasks: [{ task: "search", pass: 1, kind: "tool", output: "1 paper" }]
    }
  ],
  errors: { count: ["Collection not found: pappers"] },
  pass: 2,
  recursionLimit: 5,
  ...over
});

export const options: TreeOption[] = [
  {
    name: "count",
    kind: "tool",
    description: "Count objects in a collection.",
    inputs: {
      type: "object",
      properties: { collection: { type: "string" } },
      required: ["collection"]
    },
    end: true
  },
  {
    name: "search_tools",
    kind: "branch",
    description: "Search the archive.",
    end: false,
    leadsTo: { query: {}, filters: { by_year: {} } }
  },
  {
    name: "text_response",
    kind: "text",
    description: "Answer the user directly.",
    inputs: { type: "object", properties: {} },
    end: true
  }
];

export const request = (
  over: Partial<DecisionRequest> = {}
): DecisionRequest => ({
  treeData: treeData(),
  node: "root",
  instruction: "Pick a tool that answers the question.",
  options,
  unavailable: [
    {
      name: "summarise",
      description: "Summarise results.",
      reason: "Only after a search has results."
    }
  ],
  feedback: [],
  ...over
});

export const textRequest: TextRequest = {
  treeData: treeData(),
  reason: "limit"
};

export const decisionJson = {
  reasoning: "Count the otter papers.",
  message_update: "Counting the papers now.",
  impossible: false,
  function_name: "count",
  function_inputs: { collection: "papers" },
  end_actions: true
};

export const expectedDecision: Decision = {
  tool: "count",
  inputs: { collection: "papers" },
  end: true,
  message: "Counting the papers now.",
  impossible: false,
  reasoning: "Count the otter papers."
};

export const call = { decisionIndex: 0 };

export const sectionOf = (text: string, tag: string) =>
  new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1];

/** A sleep that records what it was asked to wait instead of waiting. */
export const recordSleeps = () => {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms) };
};
