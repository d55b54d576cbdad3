/**
 * @module The reward plot's two charts, drawn into their SVG elements:
 * steps (reward dots, return line, episode edges) and episodes (returns).
 * More points than the chart has room for are drawn as per-bucket ranges.
 */

import type { EpisodeSummary, StepPoint } from "./reward-series";
import {
  buckets,
  countTicks,
  type Frame,
  linear,
  niceDomain,
  num,
  svg,
  xAxis,
  yAxis
} from "./svg-chart";

/** Below this many pixels per point, points are drawn as ranges of a bucket. */
export const MIN_SLOT = 3;
/** Points listed one by one in a chart's text alternative. */
const SPOKEN = 20;

export const margins = { left: 40, right: 10, top: 18, bottom: 30 };

/**
 * One bucket of a long series: a bar from its lowest to its highest value
 * (a bucket of equal values is a 2 px mark centred on them), with its
 * numbers as the tooltip.
 */
const rangeMark = (
  x: number,
  slotWidth: number,
  span: { top: number; bottom: number },
  className: string,
  title: string
): SVGElement => {
  const tall = span.bottom - span.top;
  return svg(
    "rect",
    {
      x,
      y: tall < 2 ? span.top - 1 : span.top,
      width: Math.max(1, slotWidth * 0.8),
      height: Math.max(2, tall),
      class: className
    },
    svg("title", {}, title)
  );
};

export const plural = (n: number, word: string): string =>
  `${n} ${word}${n === 1 ? "" : "s"}`;

export const ending = (e: EpisodeSummary, current: boolean): string =>
  e.ended ? "ended" : current ? "in progress" : "left unfinished";

const episodeText = (e: EpisodeSummary, current: boolean): string =>
  `episode ${e.episode}: return ${num(e.return)} after ${plural(e.steps, "step")}, ${ending(e, current)}${e.partial ? " (its first steps are not in the log)" : ""}`;

const stepText = (p: StepPoint): string =>
  `step ${p.step} of episode ${p.episode}: reward ${num(p.reward)}, return ${num(p.total)}${p.done ? ", done" : p.truncated ? ", truncated" : ""}`;

/** Lowest and highest, without spreading thousands of arguments. */
export const span = (values: number[]): { min: number; max: number } => {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
};

/** A chart's text alternative: its summary, then the values when there are few. */
export const label = (el: SVGSVGElement, text: string): void => {
  el.setAttribute("aria-label", text);
  el.prepend(svg("title", {}, text));
};

/** Each step's reward as a dot and the episode's running return as a line. */
export const drawSteps = (
  el: SVGSVGElement,
  points: StepPoint[],
  width: number
): void => {
  const frame: Frame = { width, height: 170, ...margins };
  el.setAttribute("viewBox", `0 0 ${width} ${frame.height}`);
  el.replaceChildren();
  const n = points.length;
  const plotW = width - frame.left - frame.right;
  if (n === 0) {
    label(el, "No steps in this episode yet.");
    el.append(
      svg(
        "text",
        {
          x: frame.left + plotW / 2,
          y: 40,
          "text-anchor": "middle",
          class: "caption"
        },
        "no steps yet"
      )
    );
    return;
  }
  const rewards = span(points.map((p) => p.reward));
  const totals = span(points.flatMap((p) => [p.total, p.total - p.reward]));
  const domain = niceDomain(
    Math.min(rewards.min, totals.min),
    Math.max(rewards.max, totals.max)
  );
  const y = linear(
    domain.lo,
    domain.hi,
    frame.height - frame.bottom,
    frame.top
  );
  const slot = plotW / n;
  const at = (i: number) => frame.left + (i + 0.5) * slot;
  el.append(
    yAxis(frame, domain.ticks, y),
    xAxis(
      frame,
      countTicks(1, n).map((i) => ({ at: at(i - 1), label: String(i) })),
      "steps, in order"
    )
  );
  const starts = points.flatMap((p, i) =>
    i === 0 || p.episode !== points[i - 1]!.episode ? [i] : []
  );
  // Episode edges, labelled where there is room: a dense session gets
  // its episodes from the chart below instead.
  if (starts.length <= plotW / 6) {
    starts.forEach((start, k) => {
      const x = frame.left + start * slot;
      const end = starts[k + 1] ?? n;
      if (start > 0)
        el.append(
          svg("line", {
            x1: x,
            x2: x,
            y1: frame.top,
            y2: frame.height - frame.bottom,
            class: "episode-edge"
          })
        );
      if ((end - start) * slot >= 36)
        el.append(
          svg(
            "text",
            { x: x + 3, y: frame.top - 6, class: "caption" },
            `ep ${points[start]!.episode}`
          )
        );
    });
  }
  if (slot >= MIN_SLOT) {
    const path = points
      .map((p, i) => {
        const first = starts.includes(i);
        const lead = first
          ? `M${frame.left + i * slot} ${y(p.total - p.reward)}`
          : "";
        return `${lead}L${at(i)} ${y(p.total)}`;
      })
      .join("");
    el.append(svg("path", { d: path, class: "return-line" }));
    const r = Math.max(1.5, Math.min(3.5, slot / 3));
    for (const [i, p] of points.entries()) {
      el.append(
        svg(
          "circle",
          {
            cx: at(i),
            cy: y(p.reward),
            r,
            class: "reward-dot",
            "data-seq": p.seq
          },
          svg("title", {}, stepText(p))
        )
      );
    }
  } else {
    // More steps than pixels: each bucket draws the range of its rewards
    // and the return at its last step.
    const parts = buckets(n, plotW / MIN_SLOT);
    const x0 = (i: number) => frame.left + i * slot;
    const line: string[] = [];
    for (const { from, to } of parts) {
      const slice = points.slice(from, to);
      const r = span(slice.map((p) => p.reward));
      const last = slice.at(-1)!;
      el.append(
        rangeMark(
          x0(from),
          x0(to) - x0(from),
          { top: y(r.max), bottom: y(r.min) },
          "reward-range",
          `steps ${from + 1}–${to}: reward ${num(r.min)} to ${num(r.max)}, return ${num(last.total)} after step ${last.step} of episode ${last.episode}`
        )
      );
      line.push(
        `${line.length === 0 ? "M" : "L"}${(x0(from) + x0(to)) / 2} ${y(last.total)}`
      );
    }
    el.append(svg("path", { d: line.join(""), class: "return-line" }));
  }
  const shown =
    n <= SPOKEN
      ? `: ${points.map((p) => `${num(p.reward)} (return ${num(p.total)})`).join(", ")}`
      : `; the last: ${stepText(points.at(-1)!)}`;
  label(
    el,
    `Reward of each of ${plural(n, "step")}, from ${num(rewards.min)} to ${num(rewards.max)}, with the running return${shown}`
  );
};

/** Each episode's return as a dot, hollow while it has not ended. */
export const drawEpisodes = (
  el: SVGSVGElement,
  episodes: EpisodeSummary[],
  width: number,
  current: number | undefined
): void => {
  const frame: Frame = { width, height: 130, ...margins };
  el.setAttribute("viewBox", `0 0 ${width} ${frame.height}`);
  el.replaceChildren();
  const m = episodes.length;
  const plotW = width - frame.left - frame.right;
  const returns = span(episodes.map((e) => e.return));
  const domain = niceDomain(returns.min, returns.max, 3);
  const y = linear(
    domain.lo,
    domain.hi,
    frame.height - frame.bottom,
    frame.top
  );
  const slot = plotW / m;
  const at = (i: number) => frame.left + (i + 0.5) * slot;
  el.append(
    yAxis(frame, domain.ticks, y),
    xAxis(
      frame,
      countTicks(1, m).map((i) => ({
        at: at(i - 1),
        label: String(episodes[i - 1]!.episode)
      })),
      "episodes"
    )
  );
  if (slot >= MIN_SLOT) {
    if (m > 1)
      el.append(
        svg("path", {
          d: episodes
            .map((e, i) => `${i === 0 ? "M" : "L"}${at(i)} ${y(e.return)}`)
            .join(""),
          class: "episode-line"
        })
      );
    const r = Math.max(2, Math.min(4, slot / 3));
    for (const [i, e] of episodes.entries()) {
      el.append(
        svg(
          "circle",
          {
            cx: at(i),
            cy: y(e.return),
            r,
            class: e.ended ? "episode-dot" : "episode-dot open",
            "data-episode": e.episode
          },
          svg("title", {}, episodeText(e, e.episode === current))
        )
      );
    }
  } else {
    const x0 = (i: number) => frame.left + i * slot;
    const line: string[] = [];
    for (const { from, to } of buckets(m, plotW / MIN_SLOT)) {
      const slice = episodes.slice(from, to);
      const r = span(slice.map((e) => e.return));
      const mean = slice.reduce((s, e) => s + e.return, 0) / slice.length;
      el.append(
        rangeMark(
          x0(from),
          x0(to) - x0(from),
          { top: y(r.max), bottom: y(r.min) },
          "episode-range",
          `episodes ${slice[0]!.episode}–${slice.at(-1)!.episode}: return ${num(r.min)} to ${num(r.max)}, mean ${num(mean)}`
        )
      );
      line.push(
        `${line.length === 0 ? "M" : "L"}${(x0(from) + x0(to)) / 2} ${y(mean)}`
      );
    }
    el.append(svg("path", { d: line.join(""), class: "episode-line" }));
  }
  const listed = m <= SPOKEN ? episodes : episodes.slice(-SPOKEN);
  label(
    el,
    `Return of each of ${plural(m, "episode")}${m > SPOKEN ? `, the last ${SPOKEN}` : ""}: ${listed
      .map((e) => `episode ${e.episode}: ${num(e.return)}`)
      .join(", ")}`
  );
};
