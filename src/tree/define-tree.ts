/** @module A decision tree: its config schema and the resolved tree, checked against the environment's tool names. */

import * as z from "zod";
import { RoostError } from "../errors";
import { describeIssues } from "../issues";
import type { JsonObject } from "../json";
import { lazy } from "../lazy";
import { NAME_RE } from "../names";
import type { Atlas, BranchConfig, DecisionModel, ToolEntry } from "./types";

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

const NameSchema = lazy(() =>
  z
    .string()
    .regex(NAME_RE, "Names are 1 to 64 characters of letters, digits, _ and -.")
);

const AtlasSchema = lazy(() =>
  z.strictObject({
    style: z.string().default("No style provided."),
    agentDescription: z.string().default("No description provided."),
    endGoal: z.string().default("No end goal provided.")
  })
);

interface ParsedFollowUps {
  tool: string;
  followUps: ParsedEntry[];
  instruction?: string | undefined;
}
type ParsedEntry = string | ParsedFollowUps;

const ToolEntrySchema = lazy(
  (): z.ZodType<ParsedEntry, ToolEntry> =>
    z.lazy(() =>
      z.union([
        NameSchema(),
        z.strictObject({
          tool: NameSchema(),
          followUps: z.array(ToolEntrySchema()),
          instruction: z.string().min(1).optional()
        })
      ])
    )
);

interface ParsedBranch {
  id: string;
  description: string;
  instruction: string;
  tools: ParsedEntry[];
  branches: ParsedBranch[];
}

const BranchConfigSchema = lazy(
  (): z.ZodType<ParsedBranch, BranchConfig> =>
    z.lazy(() =>
      z.strictObject({
        id: NameSchema(),
        description: z.string().min(1),
        instruction: z.string().min(1),
        tools: z.array(ToolEntrySchema()).default([]),
        branches: z.array(BranchConfigSchema()).default([])
      })
    )
);

/** `defineEnvironment({ tree })` as parsed: every default filled in. */
export const TreeConfigSchema = lazy(() =>
  z.strictObject({
    // prefault, not default: the empty object must still get the field defaults.
    atlas: AtlasSchema().prefault({}),
    instruction: z.string().min(1).default(DEFAULT_ROOT_INSTRUCTION),
    tools: z.array(ToolEntrySchema()).default([]),
    branches: z.array(BranchConfigSchema()).default([]),
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
  })
);
export type ParsedTreeConfig = z.output<ReturnType<typeof TreeConfigSchema>>;

/** One node of a resolved tree: the root, a branch, or the follow-ups of a tool. */
export interface TreeNode {
  /** `root`, a branch id, or `<node>.<tool>` for the follow-ups of `tool` at `<node>` (Elysia's naming). */
  id: string;
  kind: "root" | "branch" | "followUps";
  description: string;
  instruction: string;
  tools: string[];
  branches: TreeNode[];
  /** Per tool of this node that has follow-ups: the node the pass continues at after it ran. */
  followUps: Record<string, TreeNode>;
  /** Every option below this node, nested by branch and by tool for follow-ups (Elysia's "future tools"). */
  leadsTo: JsonObject;
}

export interface ResolvedTree {
  atlas: Atlas;
  root: TreeNode;
  recursionLimit: number;
  textResponse: boolean;
  /** The environment's own model, if the tree config gave one. */
  model?: DecisionModel;
  /** The node with this id (`root`, a branch id, or a follow-up node's). */
  node(id: string): TreeNode | undefined;
}

const invalid = (message: string) => new RoostError("invalid_request", message);

const toolOf = (entry: ParsedEntry): string =>
  typeof entry === "string" ? entry : entry.tool;

export const followUpInstruction = (tool: string): string =>
  `${tool} has just run. Choose what to do with its result.`;

/**
 * Validates a tree against the environment's tools and indexes its nodes.
 * Throws `invalid_request` naming the offending branch or tool, so a bad
 * tree fails when the environment is defined, not mid-run.
 */
export const resolveTree = (
  config: unknown,
  tools: ReadonlyMap<string, unknown>
): ResolvedTree => {
  const parsed = TreeConfigSchema().safeParse(config);
  if (!parsed.success) {
    throw invalid(`Invalid tree: ${describeIssues(parsed.error.issues)}`);
  }
  const cfg = parsed.data;
  const nodes = new Map<string, TreeNode>();
  const known = [...tools.keys()].join(", ") || "(none)";

  const checkTools = (entries: ParsedEntry[], where: string) => {
    const seen = new Set<string>();
    for (const name of entries.map(toolOf)) {
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
  };

  /**
   * Adds the follow-up nodes of `entries` under `node`. `chain` is the tools
   * that led here within one pass: a follow-up that repeats one of them
   * would let a pass loop for ever, so it is refused.
   */
  const addFollowUps = (
    node: TreeNode,
    entries: ParsedEntry[],
    chain: string[]
  ) => {
    for (const entry of entries) {
      if (typeof entry === "string" || entry.followUps.length === 0) {
        node.leadsTo[toolOf(entry)] = {};
        continue;
      }
      const path = [...chain, entry.tool];
      const where = `The follow-ups of "${path.join(" -> ")}" at ${node.id.split(".")[0]}`;
      checkTools(entry.followUps, where);
      const looping = entry.followUps.map(toolOf).find((t) => path.includes(t));
      if (looping !== undefined) {
        throw invalid(
          `${where} include "${looping}", which makes a cycle (${[...path, looping].join(" -> ")}); a tool cannot follow itself.`
        );
      }
      const next: TreeNode = {
        id: `${node.id}.${entry.tool}`,
        kind: "followUps",
        description: "",
        instruction: entry.instruction ?? followUpInstruction(entry.tool),
        tools: entry.followUps.map(toolOf),
        branches: [],
        followUps: {},
        leadsTo: {}
      };
      nodes.set(next.id, next);
      node.followUps[entry.tool] = next;
      addFollowUps(next, entry.followUps, path);
      node.leadsTo[entry.tool] = next.leadsTo;
    }
  };

  const build = (branch: ParsedBranch, where: string): TreeNode => {
    checkTools(branch.tools, where);
    const node: TreeNode = {
      id: branch.id,
      kind: branch.id === ROOT_ID ? "root" : "branch",
      description: branch.description,
      instruction: branch.instruction,
      tools: branch.tools.map(toolOf),
      branches: [],
      followUps: {},
      leadsTo: {}
    };
    nodes.set(node.id, node);
    addFollowUps(node, branch.tools, []);
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
