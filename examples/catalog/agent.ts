/** @module The catalog's decision tree and a scripted model that walks it: query → aggregate → text response. */

import {
  type DecisionRequest,
  scriptedModel,
  type TreeConfig
} from "roost-edge/core";

const ANIMALS = ["cat", "dog", "bird", "fish", "rabbit"] as const;

/** Reads what a demo prompt asks for: an animal, and "rated X or higher". */
export const readPrompt = (prompt: string) => {
  const lower = prompt.toLowerCase();
  const animal = ANIMALS.find((a) => new RegExp(`\\b${a}s?\\b`).test(lower));
  const rated = /rated\s+(\d+(?:\.\d+)?)/.exec(lower);
  const filters: { field: string; op: "eq" | "gt"; value: string | number }[] =
    [];
  if (animal) filters.push({ field: "animal", op: "eq", value: animal });
  if (rated) {
    // "rated 4.5 or higher" includes 4.5 itself.
    filters.push({
      field: "rating",
      op: "gt",
      value: Number(rated[1]) - 0.001
    });
  }
  return { filters };
};

const done = (request: DecisionRequest, task: string): boolean =>
  request.treeData.tasksCompleted
    .at(-1)
    ?.tasks.some((t) => t.task === task && t.error !== true) ?? false;

/**
 * Stands in for a language model in demos and tests, deciding from the tree
 * data as a model would: search, count what was found, then answer from
 * the environment.
 */
export const catalogScript = scriptedModel(
  (request) => {
    const queried = done(request, "query");
    const aggregated = done(request, "aggregate");
    if (request.node === "root") {
      return queried && aggregated
        ? {
            tool: "text_response",
            inputs: {
              text: `Here is what I found for "${request.treeData.userPrompt}", with counts per category.`
            },
            message: "Writing the answer."
          }
        : { tool: "search", message: "Searching the catalog." };
    }
    if (!queried) {
      return {
        tool: "query",
        inputs: {
          collection: "products",
          ...readPrompt(request.treeData.userPrompt),
          limit: 10
        },
        message: "Looking up matching products.",
        reasoning: "The user asks about products; query them first."
      };
    }
    return {
      tool: "aggregate",
      inputs: { collection: "products", group_by: "category", metric: "count" },
      message: "Counting products per category.",
      reasoning: "A count per category puts the results in context."
    };
  },
  {
    name: "scripted",
    final: (request) =>
      `I could not finish in ${request.treeData.recursionLimit} passes; the environment holds what I found.`
  }
);

export const catalogTree: TreeConfig = {
  atlas: {
    style: "Brief and friendly; name products and prices.",
    agentDescription: "A pet shop assistant who searches the shop's catalog.",
    endGoal: "Answer the customer's question from the catalog's data."
  },
  instruction:
    "Search when the environment lacks the data to answer; answer with text_response once it has it.",
  branches: [
    {
      id: "search",
      description: "Retrieve or summarise products and customer messages.",
      instruction:
        "Use query to find items, aggregate to count or average them per group.",
      tools: ["query", "aggregate"]
    }
  ],
  recursionLimit: 5,
  model: catalogScript
};
