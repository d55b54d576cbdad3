/** @module What the model may pick at a node now: tools filtered by `available`, branches, `text_response`; and the `runIf` tools that run first. */

import { cloneJson, type JsonObject } from "../json";
import { withinTime } from "../timeout";
import type { Tool } from "../tools/define-tool";
import { parametersSchema } from "../tools/json-schema";
import {
  type ResolvedTree,
  ROOT_ID,
  TEXT_RESPONSE,
  TEXT_RESPONSE_DESCRIPTION,
  TEXT_RESPONSE_INPUTS,
  type TreeNode
} from "../tree/define-tree";
import { copyTreeData } from "../tree/tree-data";
import type { TreeData, TreeOption, UnavailableOption } from "../tree/types";

const errorText = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** How long an `available` or `runIf` check may take; a check is meant to be a quick look at tree data. */
export const CHECK_TIMEOUT_MS = 5_000;

/** A check that never settles would otherwise hold the session's queue for good. */
const checked = <T>(check: () => T | Promise<T>): Promise<T> =>
  withinTime(check, CHECK_TIMEOUT_MS);

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
  // A copy per call: a predicate that mutates what it is shown cannot touch
  // the run's data, and its store is the read-only view.
  const view = copyTreeData(treeData);
  // The tree was checked against every tool of the environment when it was
  // defined; a tool missing here is one this episode's reset left out,
  // and it is not offered at all.
  const checked = await Promise.all(
    node.tools.flatMap((name) => {
      const tool = tools.get(name);
      if (tool === undefined) return [];
      return [
        (async () => ({
          name,
          tool,
          reason: await unavailableReason(tool, view)
        }))()
      ];
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
    const leadsTo = offeredBelow(tree, branch.leadsTo, tools);
    // A branch with nothing this episode offers below it would only lead
    // the model to an empty node.
    if (Object.keys(leadsTo).length === 0) continue;
    options.push({
      name: branch.id,
      kind: "branch",
      description: branch.description,
      end: false,
      leadsTo
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

/**
 * A branch's `leadsTo` cut down to what this episode offers: tools its
 * reset left out go, with their follow-ups, and so do sub-branches left
 * with nothing. Keys are tool names or branch ids, which never coincide.
 */
const offeredBelow = (
  tree: ResolvedTree,
  leadsTo: JsonObject,
  tools: ReadonlyMap<string, Tool>
): JsonObject => {
  const out: JsonObject = {};
  for (const [name, below] of Object.entries(leadsTo)) {
    const nested = offeredBelow(tree, below as JsonObject, tools);
    if (tree.node(name)?.kind === "branch") {
      if (Object.keys(nested).length > 0) out[name] = nested;
    } else if (tools.has(name)) {
      out[name] = nested;
    }
  }
  return out;
};

/** Whether an input schema has any property to fill (Elysia: "No inputs are needed"). */
export const hasInputs = (
  schema: JsonObject | undefined
): schema is JsonObject => {
  if (!schema) return false;
  const props = schema.properties;
  return (
    typeof props === "object" &&
    props !== null &&
    !Array.isArray(props) &&
    Object.keys(props).length > 0
  );
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
  const view = copyTreeData(treeData);
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
