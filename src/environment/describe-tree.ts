/** @module A resolved decision tree as the wire data `GET /v1/environments` lists, for a frontend to draw. */

import type { TreeInfo, TreeNodeInfo } from "../protocol/http-environments";
import type { Tool } from "../tools/define-tool";
import type { ResolvedTree, TreeNode } from "../tree/define-tree";

/**
 * Every node of the tree, flat, the root first then depth first in the order
 * options are offered: nodes refer to each other by id, so a client can
 * look up the node a `tree.node` or `tree.decision` event names.
 */
export const describeTree = (
  tree: ResolvedTree,
  tools: ReadonlyMap<string, Tool>
): TreeInfo => {
  const nodes: TreeNodeInfo[] = [];
  const visit = (node: TreeNode, after?: { node: string; tool: string }) => {
    nodes.push({
      id: node.id,
      kind: node.kind === "followUps" ? "follow_ups" : node.kind,
      description: node.description,
      instruction: node.instruction,
      tools: node.tools.map((name) => {
        const tool = tools.get(name);
        const next = node.followUps[name];
        return {
          name,
          description: tool?.description ?? "",
          end: tool?.end ?? false,
          ...(next ? { follow_up_node: next.id } : {})
        };
      }),
      branches: node.branches.map((b) => b.id),
      ...(after ? { after } : {})
    });
    for (const name of node.tools) {
      const next = node.followUps[name];
      if (next) visit(next, { node: node.id, tool: name });
    }
    for (const branch of node.branches) visit(branch);
  };
  visit(tree.root);
  return {
    nodes,
    text_response: tree.textResponse,
    recursion_limit: tree.recursionLimit
  };
};
