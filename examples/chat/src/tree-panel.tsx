/**
 * @module The environment's decision tree, from the listing, with the path
 * of the run's current pass highlighted from the stream's decision parts
 * and the node the run is at from its tree part.
 */
import type { ReactNode } from "react";
import type { RunPosition } from "./parts";

export interface TreeToolInfo {
  name: string;
  description: string;
  end: boolean;
  follow_up_node?: string;
}

export interface TreeNodeInfo {
  id: string;
  kind: "root" | "branch" | "follow_ups";
  description: string;
  instruction: string;
  tools: TreeToolInfo[];
  branches: string[];
}

export interface TreeInfo {
  nodes: TreeNodeInfo[];
  text_response: boolean;
  recursion_limit: number;
}

interface Path {
  nodes: Set<string>;
  /** `node/option` of each option taken. */
  options: Set<string>;
  current: string | undefined;
}

const pathOf = (position: RunPosition): Path => {
  const path: Path = {
    nodes: new Set(),
    options: new Set(),
    current: position.tree?.state === "running" ? position.tree.node : undefined
  };
  for (const d of position.decisions) {
    path.nodes.add(d.node);
    path.options.add(`${d.node}/${d.option}`);
    if (d.kind === "branch") path.nodes.add(d.option);
  }
  return path;
};

interface NodeProps {
  node: TreeNodeInfo;
  byId: Map<string, TreeNodeInfo>;
  textResponse: boolean;
  path: Path;
}

const Option = ({
  name,
  description,
  end,
  taken,
  children
}: {
  name: string;
  description?: string;
  end?: boolean;
  taken: boolean;
  children?: ReactNode;
}) => (
  <li
    className="tree-option"
    data-tool={name}
    data-on-path={taken || undefined}
    title={description}
  >
    <span className="tree-label">
      <code>{name}</code>
      {end ? <span className="tag">may end</span> : null}
    </span>
    {children}
  </li>
);

const TreeNode = ({ node, byId, textResponse, path }: NodeProps) => {
  const current = path.current === node.id;
  return (
    <li
      className={`tree-node ${node.kind}`}
      data-node={node.id}
      data-on-path={path.nodes.has(node.id) || undefined}
      aria-current={current ? "step" : undefined}
    >
      <span className="tree-label">
        <strong>{node.id}</strong>
        <span className="node-hint">
          {node.description || node.instruction}
        </span>
      </span>
      <ul>
        {node.tools.map((tool) => {
          const next = tool.follow_up_node
            ? byId.get(tool.follow_up_node)
            : undefined;
          return (
            <Option
              key={tool.name}
              name={tool.name}
              description={tool.description}
              end={tool.end}
              taken={path.options.has(`${node.id}/${tool.name}`)}
            >
              {next ? (
                <ul>
                  <TreeNode
                    node={next}
                    byId={byId}
                    textResponse={textResponse}
                    path={path}
                  />
                </ul>
              ) : null}
            </Option>
          );
        })}
        {node.kind === "root" && textResponse ? (
          <Option
            name="text_response"
            description="Answer the user and end the run."
            taken={path.options.has(`${node.id}/text_response`)}
          />
        ) : null}
        {node.branches.map((id) => {
          const branch = byId.get(id);
          return branch ? (
            <TreeNode
              key={id}
              node={branch}
              byId={byId}
              textResponse={textResponse}
              path={path}
            />
          ) : null;
        })}
      </ul>
    </li>
  );
};

export const TreePanel = ({
  tree,
  position
}: {
  tree: TreeInfo | undefined;
  position: RunPosition;
}) => {
  const root = tree?.nodes[0];
  const state = position.tree?.state;
  const pass = position.tree?.pass;
  return (
    <section className="panel" aria-labelledby="tree-title">
      <header className="panel-head">
        <h2 id="tree-title">Decision tree</h2>
        <span className="pill" data-state={state ?? "idle"} id="tree-state">
          {state === undefined
            ? "idle"
            : state === "running"
              ? `pass ${(pass ?? 0) + 1} of ${tree?.recursion_limit ?? "?"}`
              : state}
        </span>
      </header>
      {tree && root ? (
        <ul
          className="tree"
          data-state={state ?? "idle"}
          data-at={position.tree?.node}
        >
          <TreeNode
            node={root}
            byId={new Map(tree.nodes.map((n) => [n.id, n]))}
            textResponse={tree.text_response}
            path={pathOf(position)}
          />
        </ul>
      ) : (
        <p className="muted">Loading the tree…</p>
      )}
    </section>
  );
};
