/** @module An environment's decision tree, drawn from the listing, with the path of the run's current pass highlighted from its frames. */

import type {
  TreeInfo,
  TreeNodeInfo
} from "../../src/protocol/http-environments";
import { fill, h } from "./dom";
import type { Frame } from "./live";

const TEXT_RESPONSE = "text_response";

/**
 * The tree as nested lists: a node, then its tools (a tool's follow-up node
 * nested under it), then its branches. During a run the nodes and options
 * of the pass in progress carry `on-path`, the node the run is at `current`
 * (and its id is the view's `data-at`);
 * when the run ends the last pass's path stays, marked done, until the next
 * run starts.
 */
export class TreeView {
  readonly element = h("div", { class: "tree-view" });
  #nodes = new Map<string, TreeNodeInfo>();
  #textResponse = false;

  /** Draws `tree`, or nothing for an environment without one. */
  show(tree: TreeInfo | undefined): void {
    this.#nodes = new Map((tree?.nodes ?? []).map((n) => [n.id, n]));
    this.#textResponse = tree?.text_response ?? false;
    const root = tree?.nodes[0];
    fill(
      this.element,
      root
        ? h(
            "p",
            { class: "hint" },
            `Up to ${tree.recursion_limit} passes; the highlighted path is the pass in progress (or the last one).`
          )
        : null,
      root ? h("ul", { class: "tree" }, this.#node(root)) : null
    );
    delete this.element.dataset.state;
    delete this.element.dataset.at;
  }

  #node(node: TreeNodeInfo): HTMLLIElement {
    const options: HTMLLIElement[] = node.tools.map((tool) => {
      const next = tool.follow_up_node
        ? this.#nodes.get(tool.follow_up_node)
        : undefined;
      return h(
        "li",
        { class: "tree-tool", "data-tool": tool.name, title: tool.description },
        h("code", {}, tool.name),
        tool.end ? h("small", { class: "badge" }, "may end") : null,
        next ? h("ul", {}, this.#node(next)) : null
      );
    });
    if (node.kind === "root" && this.#textResponse) {
      options.push(
        h(
          "li",
          { class: "tree-tool", "data-tool": TEXT_RESPONSE },
          h("code", {}, TEXT_RESPONSE)
        )
      );
    }
    const branches = node.branches
      .map((id) => this.#nodes.get(id))
      .filter((b): b is TreeNodeInfo => b !== undefined)
      .map((b) => this.#node(b));
    return h(
      "li",
      { class: `tree-node ${node.kind}`, "data-node": node.id },
      h("strong", {}, node.id),
      " ",
      h("small", { class: "hint" }, node.description || node.instruction),
      h("ul", {}, ...options, ...branches)
    );
  }

  #at(id: string): HTMLElement | null {
    return this.element.querySelector<HTMLElement>(
      `[data-node="${CSS.escape(id)}"]`
    );
  }

  #clear(): void {
    for (const el of this.element.querySelectorAll(".on-path, .current")) {
      el.classList.remove("on-path", "current");
    }
  }

  /** Follows a run: `tree.node` moves the highlight, `tree.decision` marks the option taken. */
  onEvent(frame: Frame): void {
    const payload = (frame.payload ?? {}) as {
      node?: string;
      option?: string;
      pass?: number;
    };
    if (frame.type === "reset") {
      this.#clear();
      delete this.element.dataset.state;
      delete this.element.dataset.at;
    } else if (frame.type === "tree.node" && payload.node) {
      // Every pass starts again at the root.
      if (payload.node === this.#nodes.keys().next().value) this.#clear();
      this.element.dataset.state = "running";
      this.element.dataset.at = payload.node;
      for (const el of this.element.querySelectorAll(".current")) {
        el.classList.remove("current");
      }
      const node = this.#at(payload.node);
      node?.classList.add("on-path", "current");
    } else if (frame.type === "tree.decision" && payload.node) {
      const node = this.#at(payload.node);
      const option = node?.querySelector<HTMLElement>(
        `:scope > ul > [data-tool="${CSS.escape(payload.option ?? "")}"]`
      );
      option?.classList.add("on-path");
    } else if (frame.type === "tree.completed") {
      for (const el of this.element.querySelectorAll(".current")) {
        el.classList.remove("current");
      }
      this.element.dataset.state = "done";
      delete this.element.dataset.at;
    }
  }
}
