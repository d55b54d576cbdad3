/**
 * @module Small pieces for charts drawn as inline SVG with DOM calls: an
 * element builder, linear scales, round tick values, axes, and buckets for
 * series longer than the chart is wide. Text goes in as text nodes only.
 */

const SVG_NS = "http://www.w3.org/2000/svg";

type SvgChild = SVGElement | string | null | undefined | false;

/** `svg("circle", { cx, cy, r }, svg("title", {}, "…"))`. */
export const svg = <K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | undefined> = {},
  ...children: SvgChild[]
): SVGElementTagNameMap[K] => {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
};

/** A number as a tick or a tooltip shows it: at most four significant digits. */
export const num = (value: number): string =>
  Number.isInteger(value)
    ? String(value)
    : String(Number(value.toPrecision(4)));

/** 1, 2 or 5 times a power of ten, at least `raw`. */
const niceStep = (raw: number): number => {
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
};

/** A domain widened to round ends, with about `count` ticks across it. */
export const niceDomain = (
  min: number,
  max: number,
  count = 4
): { lo: number; hi: number; ticks: number[] } => {
  let lo = Math.min(min, 0);
  let hi = Math.max(max, 0);
  if (hi - lo < 1e-9) hi = lo + 1;
  const step = niceStep((hi - lo) / count);
  lo = Math.floor(lo / step + 1e-9) * step;
  hi = Math.ceil(hi / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) {
    ticks.push(Number(v.toPrecision(12)));
  }
  return { lo, hi, ticks };
};

/** Whole-number ticks over 1…n (steps or episodes), about `count` of them. */
export const countTicks = (
  first: number,
  last: number,
  count = 6
): number[] => {
  if (last <= first) return [first];
  const step = Math.max(1, niceStep((last - first) / count));
  const ticks = [first];
  for (let v = Math.ceil((first + 1) / step) * step; v <= last; v += step) {
    if (v - ticks.at(-1)! >= step / 2) ticks.push(v);
  }
  return ticks;
};

export interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export const linear =
  (d0: number, d1: number, r0: number, r1: number) =>
  (v: number): number =>
    d1 === d0 ? (r0 + r1) / 2 : r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);

/** Horizontal grid lines with their values on the left, and the zero line darker. */
export const yAxis = (
  frame: Frame,
  ticks: number[],
  y: (v: number) => number
): SVGGElement =>
  svg(
    "g",
    { class: "axis y" },
    ...ticks.map((t) =>
      svg(
        "g",
        {},
        svg("line", {
          x1: frame.left,
          x2: frame.width - frame.right,
          y1: y(t),
          y2: y(t),
          class: t === 0 ? "zero" : "grid"
        }),
        svg(
          "text",
          { x: frame.left - 4, y: y(t), "text-anchor": "end", dy: "0.32em" },
          num(t)
        )
      )
    )
  );

/** Tick labels under the plot, and what the axis counts. */
export const xAxis = (
  frame: Frame,
  ticks: { at: number; label: string }[],
  caption: string
): SVGGElement => {
  const base = frame.height - frame.bottom;
  return svg(
    "g",
    { class: "axis x" },
    svg("line", {
      x1: frame.left,
      x2: frame.width - frame.right,
      y1: base,
      y2: base,
      class: "edge"
    }),
    ...ticks.map((t) =>
      svg("text", { x: t.at, y: base + 12, "text-anchor": "middle" }, t.label)
    ),
    svg(
      "text",
      {
        x: frame.width - frame.right,
        y: base + 24,
        "text-anchor": "end",
        class: "caption"
      },
      caption
    )
  );
};

/** Index ranges [from, to) splitting `n` items into at most `count` buckets. */
export const buckets = (
  n: number,
  count: number
): { from: number; to: number }[] => {
  const k = Math.max(1, Math.min(n, Math.floor(count)));
  return Array.from({ length: k }, (_, b) => ({
    from: Math.floor((b * n) / k),
    to: Math.floor(((b + 1) * n) / k)
  }));
};
