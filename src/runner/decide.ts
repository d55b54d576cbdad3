/** @module One decision at a node (Elysia's DecisionNode): the one-option shortcut, and re-asking a model that names an option not offered. */

import { RoostError } from "../errors";
import type { TreeNode } from "../tree/define-tree";
import type {
  Decision,
  DecisionModel,
  TreeData,
  TreeOption,
  UnavailableOption
} from "../tree/types";
import { hasInputs } from "./options";

/** Asks the model, re-asking with feedback when it names an option not offered here. */
export const decide = async (
  asker: {
    model: DecisionModel;
    /** Re-asks after a model names an option that is not offered (default 2). */
    maxRetries?: number;
    signal?: AbortSignal;
    /** Decisions the run made before this one (scripted models index by it). */
    decisions: number;
  },
  request: {
    treeData: TreeData;
    node: TreeNode;
    options: TreeOption[];
    unavailable: UnavailableOption[];
  }
): Promise<{ decision: Decision; option: TreeOption; used: number }> => {
  const only = request.options.length === 1 ? request.options[0]! : undefined;
  if (only !== undefined && !hasInputs(only.inputs)) {
    // Elysia's shortcut: nothing to choose and nothing to fill in, so no
    // model call (and no decision used).
    return {
      decision: {
        tool: only.name,
        inputs: {},
        end: only.end,
        message: "",
        impossible: false,
        reasoning: `Only one option available: ${only.name} (and no inputs are needed).`
      },
      option: only,
      used: 0
    };
  }
  const retries = asker.maxRetries ?? 2;
  const feedback: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const decision = await asker.model.decide(
      {
        treeData: request.treeData,
        node: request.node.id,
        instruction: request.node.instruction,
        options: request.options,
        unavailable: request.unavailable,
        feedback
      },
      {
        decisionIndex: asker.decisions + attempt,
        ...(asker.signal ? { signal: asker.signal } : {})
      }
    );
    const option = request.options.find((o) => o.name === decision.tool);
    if (option !== undefined) return { decision, option, used: attempt + 1 };
    const names = request.options.map((o) => o.name).join(", ");
    const why = request.unavailable.find((u) => u.name === decision.tool);
    feedback.push(
      why
        ? `"${decision.tool}" is not available now (${why.reason}). Choose one of: ${names}.`
        : `"${decision.tool}" is not an option at ${request.node.id}. Choose one of: ${names}.`
    );
    if (attempt >= retries) {
      throw new RoostError(
        "model_error",
        `The model chose "${decision.tool}", which is not an option at ${request.node.id}, ${attempt + 1} times. Options: ${names}.`,
        { node: request.node.id, options: request.options.map((o) => o.name) }
      );
    }
  }
};
