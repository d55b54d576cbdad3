/**
 * @module "View as": a multi-agent session's transcript as one agent sees
 * it, its own messages and the shared ones (docs/25-multi-agent.md), or
 * every agent's. Rows are hidden, not dropped, so switching back costs no
 * read; rows added later (live, older, a catch-up) are filtered as they
 * come. Whose turn it is shows in the state, under `agents`.
 */

import { $, fill, h } from "./dom";

export class AgentView {
  readonly #select = $<HTMLSelectElement>("#view-as");
  readonly #list = $<HTMLOListElement>("#transcript");

  constructor() {
    this.#select.addEventListener("change", () => this.#apply());
    new MutationObserver((changes) => {
      for (const change of changes)
        for (const row of change.addedNodes)
          if (row instanceof HTMLElement) this.#show(row);
    }).observe(this.#list, { childList: true });
  }

  /** The environment's agents; for one agent the control stays hidden. */
  setAgents(agents: readonly { name: string; played?: boolean }[] = []): void {
    fill(
      this.#select,
      h("option", { value: "" }, "every agent"),
      ...agents.map((a) =>
        h(
          "option",
          { value: a.name },
          a.played ? `${a.name} (played by the environment)` : a.name
        )
      )
    );
    this.#select.value = "";
    $("#view-as-label").hidden = agents.length === 0;
    this.#apply();
  }

  #apply(): void {
    for (const row of this.#list.children)
      if (row instanceof HTMLElement) this.#show(row);
  }

  #show(row: HTMLElement): void {
    const agent = this.#select.value;
    const own = row.dataset.agent;
    row.hidden = agent !== "" && own !== undefined && own !== agent;
  }
}
