/** @module The registered environments as cards: description, task schema and every tool's parameters. */

import type { TreeInfo } from "../../src/protocol/http-environments";
import { h, short } from "./dom";
import type { JsonSchema } from "./schema-form";

export interface ToolSchema {
  type: "function";
  function: { name: string; description?: string; parameters: JsonSchema };
}

export interface EnvironmentInfo {
  name: string;
  description: string;
  task_schema: JsonSchema;
  tools: ToolSchema[];
  dataset_size?: number;
  tree?: TreeInfo;
  dataset_generated?: boolean;
  splits?: { name: string; size?: number; generated: boolean }[];
  /** With rubrics: the components that are metrics (weight 0). */
  reward_metrics?: string[];
  /** A multi-agent environment's agents. */
  agents?: { name: string; played: boolean }[];
}

const paramRows = (schema: JsonSchema) => {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) =>
    h(
      "tr",
      {},
      h(
        "td",
        {},
        name,
        required.has(name) ? h("span", { class: "req" }, " *") : null
      ),
      h("td", {}, p.enum ? p.enum.join(" | ") : String(p.type ?? "any")),
      h("td", {}, p.description ?? ""),
      h("td", {}, p.default === undefined ? "" : short(p.default, 40))
    )
  );
};

export const environmentCards = (environments: EnvironmentInfo[]) =>
  environments.map((env) =>
    h(
      "div",
      { class: "env", "data-env": env.name },
      h("strong", {}, env.name),
      env.dataset_size === undefined
        ? null
        : h("small", {}, ` · dataset of ${env.dataset_size}`),
      h("p", {}, env.description),
      h(
        "details",
        {},
        h(
          "summary",
          {},
          `task schema and ${env.tools.length} ${env.tools.length === 1 ? "tool" : "tools"}`
        ),
        h("pre", {}, JSON.stringify(env.task_schema, null, 1)),
        ...env.tools.map((t) =>
          h(
            "div",
            {},
            h("h4", {}, t.function.name),
            h("small", { class: "hint" }, t.function.description ?? ""),
            h(
              "table",
              {},
              h(
                "tr",
                {},
                h("th", {}, "parameter"),
                h("th", {}, "type"),
                h("th", {}, "description"),
                h("th", {}, "default")
              ),
              ...paramRows(t.function.parameters)
            )
          )
        )
      )
    )
  );
