/**
 * @module The environment's decision tree, from the listing, with the path
 * of the run's current pass highlighted (from the stream's decision parts),
 * the earlier passes' paths marked as visited, and the node the run is at:
 * from the stream's tree part, or from the session's newer `tree.node`
 * event, which arrives before the model is asked, so the tree shows where
 * the run is while the model thinks.
 */
import type { ReactNode } from "react";
import type { TreeInfo, TreeNodeInfo } from "roost-edge/client";
import type { RunPosition } from "./parts";

/** The newest `tree.node` event of the session: where a run arrived. */
export interface LiveNode {
  runId: string;
  seq: number;
  pass: number;
  node: string;
}

interface Path {
  /** Nodes and `node/option`s of the pass in progress (or the last one). */
  nodes: Set<string>;
  options: Set<string>;
  /** Nodes and options of the run's earlier passes. */
  visited: Set<string>;
  current: string | undefined;
  pass: number | undefined;
}

const pathOf = (position: RunPosition, live: LiveNode | undefined): Path => {
  const { tree, decisions } = position;
  const running = tree?.state === "running";
  let pass = decisions.at(-1)?.pass ?? tree?.pass ?? undefined;
  let current = running ? tree?.node : undefined;
  if (
    running &&
    live !== undefined &&
    live.runId === tree?.run_id &&
    live.seq > position.lastSeq
  ) {
    current = live.node;
    pass = live.pass;
  }
  const path: Path = {
    nodes: new Set(current ? [current] : []),
    options: new Set(),
    visited: new Set(),
    current,
    pass
  };
  for (const d of decisions) {
    const nodes = d.pass === pass ? path.nodes : path.visited;
    const options = d.pass === pass ? path.options : path.visited;
    nodes.add(d.node);
    options.add(`${d.node}/${d.option}`);
    if (d.kind === "branch") nodes.add(d.option);
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
  visited,
  children
}: {
  name: string;
  description?: string;
  end?: boolean;
  taken: boolean;
  visited: boolean;
  children?: ReactNode;
}) => (
  <li
    className="tree-option"
    data-tool={name}
    data-on-path={taken || undefined}
    data-visited={visited || undefined}
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
      data-visited={path.visited.has(node.id) || undefined}
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
              visited={path.visited.has(`${node.id}/${tool.name}`)}
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
            visited={path.visited.has(`${node.id}/text_response`)}
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
  position,
  live
}: {
  tree: TreeInfo | undefined;
  position: RunPosition;
  live: LiveNode | undefined;
}) => {
  const root = tree?.nodes[0];
  const state = position.tree?.state;
  const path = pathOf(position, live);
  return (
    <section className="panel" aria-labelledby="tree-title">
      <header className="panel-head">
        <h2 id="tree-title">Decision tree</h2>
        <span className="pill" data-state={state ?? "idle"} id="tree-state">
          {state === undefined
            ? "idle"
            : state === "running"
              ? `pass ${path.pass ?? 1} of ${tree?.recursion_limit ?? "?"}`
              : state}
        </span>
      </header>
      {tree && root ? (
        <ul
          className="tree"
          data-state={state ?? "idle"}
          data-at={path.current}
        >
          <TreeNode
            node={root}
            byId={new Map(tree.nodes.map((n) => [n.id, n]))}
            textResponse={tree.text_response}
            path={path}
          />
        </ul>
      ) : (
        <p className="muted">Loading the tree…</p>
      )}
      <p className="legend">
        <span className="swatch on-path" aria-hidden="true" /> this pass
        <span className="swatch visited" aria-hidden="true" /> earlier passes
        <span className="swatch current" aria-hidden="true" /> where the run is
      </p>
    </section>
  );
};
