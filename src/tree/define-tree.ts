/** @module A decision tree: its config schema and the resolved tree, checked against the environment's tool names. */

import * as z from "zod";
import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { JsonObject } from "../json";
import { NAME_RE } from "../names";
import type { Atlas, BranchConfig, DecisionModel } from "./types";

/** The built-in option that answers the user in text; offered at the root. */
export const TEXT_RESPONSE = "text_response";

export const TEXT_RESPONSE_DESCRIPTION =
  "Reply to the user in text. Use it to give the answer, to ask for something you need, or to explain why the request cannot be done.";

export const TEXT_RESPONSE_INPUTS: JsonObject = {
  type: "object",
  properties: {
    text: {
      type: "string",
      description: "The whole reply, written for the user."
    }
  },
  required: ["text"]
};

export const ROOT_ID = "root";

export const DEFAULT_ROOT_INSTRUCTION =
  "Choose the option that best moves the user's request forward. Answer in text once the request is done or cannot be done.";

const NameSchema = z
  .string()
  .regex(NAME_RE, "Names are 1 to 64 characters of letters, digits, _ and -.");

const AtlasSchema = z.strictObject({
  style: z.string().default("No style provided."),
  agentDescription: z.string().default("No description provided."),
  endGoal: z.string().default("No end goal provided.")
});

interface ParsedBranch {
  id: string;
  description: string;
  instruction: string;
  tools: string[];
  branches: ParsedBranch[];
}

const BranchConfigSchema: z.ZodType<ParsedBranch, BranchConfig> = z.lazy(() =>
  z.strictObject({
    id: NameSchema,
    description: z.string().min(1),
    instruction: z.string().min(1),
    tools: z.array(NameSchema).default([]),
    branches: z.array(BranchConfigSchema).default([])
  })
);

/** `defineEnvironment({ tree })` as parsed: every default filled in. */
export const TreeConfigSchema = z.strictObject({
  // prefault, not default: the empty object must still get the field defaults.
  atlas: AtlasSchema.prefault({}),
  instruction: z.string().min(1).default(DEFAULT_ROOT_INSTRUCTION),
  tools: z.array(NameSchema).default([]),
  branches: z.array(BranchConfigSchema).default([]),
  recursionLimit: z.number().int().min(1).max(50).default(5),
  textResponse: z.boolean().default(true),
  model: z
    .custom<DecisionModel>(
      (v) =>
        typeof v === "object" &&
        v !== null &&
        typeof (v as DecisionModel).name === "string" &&
        typeof (v as DecisionModel).decide === "function" &&
        typeof (v as DecisionModel).respond === "function",
      "Expected a decision model: { name, decide(), respond() }."
    )
    .optional()
});
export type ParsedTreeConfig = z.output<typeof TreeConfigSchema>;

/** One node of a resolved tree: the root or a branch. */
export interface TreeNode {
  id: string;
  description: string;
  instruction: string;
  tools: string[];
  branches: TreeNode[];
  /** Every option below this node, nested by branch (Elysia's "future tools"). */
  leadsTo: JsonObject;
}

export interface ResolvedTree {
  atlas: Atlas;
  root: TreeNode;
  recursionLimit: number;
  textResponse: boolean;
  /** The environment's own model, if the tree config gave one. */
  model?: DecisionModel;
  /** The node with this id (`root` or a branch id). */
  node(id: string): TreeNode | undefined;
}

const invalid = (message: string) => new RoostError("invalid_request", message);

/**
 * Validates a tree against the environment's tools and indexes its nodes.
 * Throws `invalid_request` naming the offending branch or tool, so a bad
 * tree fails when the environment is defined, not mid-run.
 */
export const resolveTree = (
  config: unknown,
  tools: ReadonlyMap<string, unknown>
): ResolvedTree => {
  const parsed = TreeConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw invalid(`Invalid tree: ${describeIssues(parsed.error.issues)}`);
  }
  const cfg = parsed.data;
  const nodes = new Map<string, TreeNode>();
  const known = [...tools.keys()].join(", ") || "(none)";

  const build = (branch: ParsedBranch, where: string): TreeNode => {
    const seen = new Set<string>();
    for (const name of branch.tools) {
      if (!tools.has(name)) {
        throw invalid(
          `${where} lists unknown tool "${name}". Tools: ${known}.`
        );
      }
      if (seen.has(name)) {
        throw invalid(`${where} lists tool "${name}" twice.`);
      }
      // The loop treats this name as the built-in answer wherever it is picked.
      if (name === TEXT_RESPONSE && cfg.textResponse) {
        throw invalid(
          `${where} lists a tool named "${TEXT_RESPONSE}", which is the built-in text answer; rename the tool or set textResponse: false.`
        );
      }
      seen.add(name);
    }
    const node: TreeNode = {
      id: branch.id,
      description: branch.description,
      instruction: branch.instruction,
      tools: [...branch.tools],
      branches: [],
      leadsTo: Object.fromEntries(branch.tools.map((t) => [t, {}]))
    };
    nodes.set(node.id, node);
    for (const child of branch.branches) {
      if (child.id === ROOT_ID || child.id === TEXT_RESPONSE) {
        throw invalid(`Branch id "${child.id}" is reserved; pick another.`);
      }
      if (tools.has(child.id)) {
        throw invalid(
          `Branch id "${child.id}" is also a tool name; option names must be unique.`
        );
      }
      if (nodes.has(child.id)) {
        throw invalid(`Branch id "${child.id}" is used twice in the tree.`);
      }
      const built = build(child, `Branch "${child.id}"`);
      node.branches.push(built);
      node.leadsTo[built.id] = built.leadsTo;
    }
    const offersText = node.id === ROOT_ID && cfg.textResponse;
    if (node.tools.length === 0 && node.branches.length === 0 && !offersText) {
      throw invalid(
        `${where} offers nothing to choose: give it tools or branches.`
      );
    }
    return node;
  };

  const root = build(
    {
      id: ROOT_ID,
      description: "",
      instruction: cfg.instruction,
      tools: cfg.tools,
      branches: cfg.branches
    },
    "The tree's root"
  );
  return {
    atlas: cfg.atlas,
    root,
    recursionLimit: cfg.recursionLimit,
    textResponse: cfg.textResponse,
    ...(cfg.model === undefined ? {} : { model: cfg.model }),
    node: (id) => nodes.get(id)
  };
};
