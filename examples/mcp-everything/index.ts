/**
 * @module mcp-everything: the MCP conformance suite's fixtures, built with
 * Roost's own API, so the suite tests Roost's MCP layer whole. It is also
 * the reference of every MCP feature an environment can use: content of
 * every kind, progress and log lines, asking the client mid-call
 * (elicitation, sampling, roots), prompts, resources and templates with
 * completions, and tool calls run as tasks.
 */

import { defineEnvironment } from "roost-edge/core";
import { askTools } from "./ask-tools";
import { contentTools } from "./content-tools";
import { offer } from "./offer";
import { taskTools } from "./task-tools";

export const mcpEverything = defineEnvironment({
  name: "mcp-everything",
  description:
    "Every MCP feature Roost serves, as the MCP conformance suite's fixtures: content of every kind, progress, logging, questions for the client, prompts, resources and tasks.",
  tools: { ...contentTools, ...askTools, ...taskTools },
  mcp: offer,
  validation: {
    noOracle:
      "A showcase of MCP's features, not a task: there is nothing to solve."
  },
  reset: () =>
    "Call any tool: each shows one feature of MCP (see the tool's description)."
});
