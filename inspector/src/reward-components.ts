/**
 * @module The reward plot's components chart, under the steps chart and on
 * its x scale: one thin line per rubric component (dashed for a metric,
 * weight 0, which is reported and never added), a cross where a component
 * failed and a ring where a gate or a sequence skipped it, and a legend
 * that names them and counts both.
 */

import type { RewardComponent } from "../../src/protocol/reward-components";
import { h } from "./dom";
import { label, MIN_SLOT, margins, plural, span } from "./reward-charts";
import type { StepPoint } from "./reward-series";
import { type Frame, linear, niceDomain, num, svg, yAxis } from "./svg-chart";

/** Neither the steps chart's amber and blue, nor the failures' red. */
const PALETTE = [
  "#059669",
  "#7c3aed",
  "#db2777",
  "#0891b2",
  "#65a30d",
  "#9333ea",
  "#0d9488",
  "#a16207"
];

/** A report read for drawing: the value on the line, or why there is none. */
const read = (
  c: RewardComponent | undefined
):
  | { kind: "value"; value: number }
  | { kind: "error"; message: string }
  | { kind: "skipped" }
  | undefined =>
  c === undefined
    ? undefined
    : typeof c === "number"
      ? { kind: "value", value: c }
      : c.error !== undefined
        ? { kind: "error", message: c.error }
        : c.skipped
          ? { kind: "skipped" }
          : { kind: "value", value: c.value ?? 0 };

/** Component names in the order steps report them, the first seen first. */
const namesOf = (points: StepPoint[]): string[] => {
  const names = new Set<string>();
  for (const p of points)
    for (const n of Object.keys(p.components ?? {})) names.add(n);
  return [...names];
};

/**
 * Draws the components of `points` (the steps chart's points, in its
 * order) into `el`, and their legend into `legend`. Answers false, drawing
 * nothing, when no step reported components.
 */
export const drawComponents = (
  el: SVGSVGElement,
  legend: HTMLElement,
  points: StepPoint[],
  width: number,
  metrics: ReadonlySet<string>
): boolean => {
  const names = namesOf(points);
  el.replaceChildren();
  legend.replaceChildren();
  if (names.length === 0) return false;
  const frame: Frame = { width, height: 120, ...margins, bottom: 8 };
  el.setAttribute("viewBox", `0 0 ${width} ${frame.height}`);
  const n = points.length;
  const plotW = width - frame.left - frame.right;
  const slot = plotW / n;
  const at = (i: number) => frame.left + (i + 0.5) * slot;
  const values = points.flatMap((p) =>
    Object.values(p.components ?? {}).map((c) => {
      const r = read(c);
      return r?.kind === "value" ? r.value : 0;
    })
  );
  const range = span(values);
  const domain = niceDomain(range.min, range.max, 3);
  const y = linear(
    domain.lo,
    domain.hi,
    frame.height - frame.bottom,
    frame.top
  );
  el.append(yAxis(frame, domain.ticks, y));
  const marks = slot >= MIN_SLOT;
  for (const [k, name] of names.entries()) {
    const color = PALETTE[k % PALETTE.length]!;
    const metric = metrics.has(name);
    const group = svg("g", {
      class: metric ? "component metric" : "component",
      "data-component": name,
      stroke: color,
      fill: color
    });
    let failed = 0;
    let skipped = 0;
    let d = "";
    let open = false;
    for (const [i, p] of points.entries()) {
      const r = read(p.components?.[name]);
      // A new episode, a skip or a missing report breaks the line.
      const fresh = i === 0 || p.episode !== points[i - 1]!.episode;
      if (r?.kind !== "value") open = false;
      if (r === undefined) continue;
      const where = `${name} at step ${p.step} of episode ${p.episode}`;
      if (r.kind === "error") {
        failed++;
        if (marks)
          group.append(
            svg(
              "path",
              {
                d: `M${at(i) - 3} ${y(0) - 3}l6 6m0 -6l-6 6`,
                class: "component-error"
              },
              svg("title", {}, `${where} failed: ${r.message}`)
            )
          );
        continue;
      }
      if (r.kind === "skipped") {
        skipped++;
        if (marks)
          group.append(
            svg(
              "circle",
              { cx: at(i), cy: y(0), r: 2.5, class: "component-skipped" },
              svg("title", {}, `${where}: skipped`)
            )
          );
        continue;
      }
      d += `${open && !fresh ? "L" : "M"}${at(i)} ${y(r.value)}`;
      open = true;
      if (marks)
        group.append(
          svg(
            "circle",
            { cx: at(i), cy: y(r.value), r: 1.5, class: "component-dot" },
            svg(
              "title",
              {},
              `${where}: ${num(r.value)}${metric ? " (metric)" : ""}`
            )
          )
        );
    }
    group.prepend(svg("path", { d, class: "component-line" }));
    el.append(group);
    legend.append(
      h(
        "li",
        { "data-component": name, "data-metric": metric ? "true" : undefined },
        h("span", {
          class: metric ? "swatch metric" : "swatch",
          style: `border-color: ${color}`
        }),
        name,
        metric ? h("span", { class: "tag" }, "metric") : null,
        failed > 0 ? h("span", { class: "failed" }, `${failed} failed`) : null,
        skipped > 0
          ? h("span", { class: "skipped" }, `${skipped} skipped`)
          : null
      )
    );
  }
  label(
    el,
    `Reward components of ${plural(n, "step")}: ${names
      .map((name) => (metrics.has(name) ? `${name} (metric)` : name))
      .join(", ")}`
  );
  return true;
};
