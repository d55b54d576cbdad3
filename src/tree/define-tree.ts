/** @module A decision tree: its config schema, the resolved tree, and the options at a node. */

import { z } from "zod";
import { RoostError } from "../errors";
import { cloneJson, type JsonObject } from "../json";
import { NAME_RE } from "../names";
import { describeIssues } from "../tools/arguments";
import type { Tool } from "../tools/define-tool";
import { parametersSchema } from "../tools/json-schema";
import type {
  Atlas,
  BranchConfig,
  DecisionModel,
  TreeData,
  TreeOption,
  UnavailableOption
} from "./types";

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
  tools: ReadonlyMap<string, Tool>
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
      branches: []
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
      node.branches.push(build(child, `Branch "${child.id}"`));
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

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** How long an `available` or `runIf` check may take; a check is meant to be a quick look at tree data. */
export const CHECK_TIMEOUT_MS = 5_000;

/**
 * A check's answer, or a rejection after CHECK_TIMEOUT_MS: a check that
 * never settles would otherwise hold the session's queue for good.
 */
const checked = async <T>(check: () => T | Promise<T>): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(check),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`it did not answer within ${CHECK_TIMEOUT_MS} ms`)
            ),
          CHECK_TIMEOUT_MS
        );
      })
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
};

/** `available` as a reason, or undefined when the tool may be picked. */
const unavailableReason = async (
  tool: Tool,
  treeData: TreeData
): Promise<string | undefined> => {
  if (tool.available === undefined) return undefined;
  try {
    const available = tool.available;
    const verdict = await checked(() => available(treeData));
    // Only `true` opens a tool: a JavaScript predicate that forgets to return stays closed.
    if (verdict === true) return undefined;
    return typeof verdict === "string" && verdict.trim() !== ""
      ? verdict
      : "No reason provided.";
  } catch (error) {
    return `available() failed: ${errorText(error)}`;
  }
};

const hiddenParams = (tool: Tool): string[] =>
  Object.values(tool.inputsFromState ?? {}).filter(
    (p): p is string => typeof p === "string"
  );

/**
 * What the model may pick at `node`: its tools in order, then its branches,
 * then `text_response` at the root. Tools whose `available` says no are
 * listed apart with the reason, so the model knows they exist.
 */
export const optionsAt = async (
  tree: ResolvedTree,
  node: TreeNode,
  tools: ReadonlyMap<string, Tool>,
  treeData: TreeData
): Promise<{ options: TreeOption[]; unavailable: UnavailableOption[] }> => {
  // A copy per call: a predicate that mutates what it is shown cannot touch the run's data.
  const view = cloneJson(treeData);
  const checked = await Promise.all(
    node.tools.map(async (name) => {
      const tool = tools.get(name);
      if (tool === undefined) {
        throw new RoostError(
          "internal",
          `Tree node "${node.id}" names tool "${name}", which the environment lacks.`
        );
      }
      return { name, tool, reason: await unavailableReason(tool, view) };
    })
  );
  const options: TreeOption[] = [];
  const unavailable: UnavailableOption[] = [];
  for (const { name, tool, reason } of checked) {
    if (reason !== undefined) {
      unavailable.push({ name, description: tool.description, reason });
      continue;
    }
    options.push({
      name,
      kind: "tool",
      description: tool.description,
      inputs: parametersSchema(tool.input, hiddenParams(tool)),
      end: tool.end ?? false
    });
  }
  for (const branch of node.branches) {
    options.push({
      name: branch.id,
      kind: "branch",
      description: branch.description,
      end: false
    });
  }
  if (node.id === ROOT_ID && tree.textResponse) {
    options.push({
      name: TEXT_RESPONSE,
      kind: "text",
      description: TEXT_RESPONSE_DESCRIPTION,
      inputs: cloneJson(TEXT_RESPONSE_INPUTS),
      end: true
    });
  }
  return { options, unavailable };
};

const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The tools at `node` that ask to run before the decision (`runIf`), in node
 * order, with their inputs. A `runIf` that throws or returns anything but
 * `true` or `{ inputs }` does not run its tool.
 */
export const runIfTools = async (
  node: TreeNode,
  tools: ReadonlyMap<string, Tool>,
  treeData: TreeData
): Promise<{ tool: string; inputs: JsonObject }[]> => {
  const view = cloneJson(treeData);
  const verdicts = await Promise.all(
    node.tools.map(async (name) => {
      const runIf = tools.get(name)?.runIf;
      if (runIf === undefined) return undefined;
      try {
        const verdict = await checked(() => runIf(view));
        if (verdict === true) return { tool: name, inputs: {} };
        if (isPlainObject(verdict) && isPlainObject(verdict.inputs)) {
          return { tool: name, inputs: cloneJson(verdict.inputs) };
        }
      } catch {
        // A broken rule must not stop the run; the model can still pick the tool.
      }
      return undefined;
    })
  );
  return verdicts.filter((v) => v !== undefined);
};
