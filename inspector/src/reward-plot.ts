/**
 * @module The session's rewards drawn: every step's reward with the
 * episode's running return, and each episode's return. Steps come from the
 * event log once (`/events`) and then live from the socket's frames; a
 * series longer than the chart is wide is drawn as per-pixel ranges.
 */

import { ApiError, type Credentials, sessionApi } from "./api";
import { fill, h } from "./dom";
import {
  type EpisodeStatus,
  type EpisodeSummary,
  RewardSeries,
  type StepPoint
} from "./reward-series";
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
const MIN_SLOT = 3;
const PAGE = 1000;
/** Rows of the numbers table: the newest episodes. */
const TABLE_ROWS = 50;
/** Points listed one by one in a chart's text alternative. */
const SPOKEN = 20;

const margins = { left: 40, right: 10, top: 18, bottom: 30 };

const plural = (n: number, word: string): string =>
  `${n} ${word}${n === 1 ? "" : "s"}`;

const ending = (e: EpisodeSummary, current: boolean): string =>
  e.ended ? "ended" : current ? "in progress" : "left unfinished";

const episodeText = (e: EpisodeSummary, current: boolean): string =>
  `episode ${e.episode}: return ${num(e.return)} after ${plural(e.steps, "step")}, ${ending(e, current)}${e.partial ? " (its first steps are not in the log)" : ""}`;

const stepText = (p: StepPoint): string =>
  `step ${p.step} of episode ${p.episode}: reward ${num(p.reward)}, return ${num(p.total)}${p.done ? ", done" : p.truncated ? ", truncated" : ""}`;

/** Lowest and highest, without spreading thousands of arguments. */
const span = (values: number[]): { min: number; max: number } => {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
};

/** A chart's text alternative: its summary, then the values when there are few. */
const label = (el: SVGSVGElement, text: string): void => {
  el.setAttribute("aria-label", text);
  el.prepend(svg("title", {}, text));
};

export class RewardPlot {
  readonly element = h("div", { class: "reward-plot" });
  readonly #summary = h("p", {
    class: "plot-summary",
    "data-testid": "plot-summary"
  });
  readonly #steps = svg("svg", { "data-plot": "steps", role: "img" });
  readonly #episodes = svg("svg", { "data-plot": "episodes", role: "img" });
  readonly #table = h("tbody");
  readonly #numbers = h(
    "details",
    { class: "plot-numbers" },
    h("summary", {}, "Numbers"),
    h(
      "table",
      { "data-testid": "episode-returns" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}, "episode"),
          h("th", {}, "steps"),
          h("th", {}, "return"),
          h("th", {}, "end")
        )
      ),
      this.#table
    )
  );
  readonly #series = new RewardSeries();
  #session: Credentials | undefined;
  #status: EpisodeStatus | undefined;
  /** The log has been read up to this seq. */
  #after = 0;
  /** Bumped by attach: a load for an older session drops what it reads. */
  #generation = 0;
  #loading = -1;
  #again = false;
  #scheduled = false;
  #width = 0;
  #onError: (error: unknown) => void;

  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
    this.element.append(
      this.#summary,
      this.#steps,
      this.#episodes,
      this.#numbers
    );
    new ResizeObserver(() => {
      const width = Math.round(this.element.clientWidth);
      if (width !== this.#width) this.#schedule();
    }).observe(this.element);
  }

  attach(session: Credentials): void {
    this.#session = session;
    this.#generation++;
    this.#series.clear();
    this.#status = undefined;
    this.#after = 0;
    this.#schedule();
    void this.#load();
  }

  /** The status line's episode, steps and return (the current episode's truth). */
  setStatus(status: EpisodeStatus): void {
    this.#status = status;
    if (this.#series.setStatus(status)) this.#schedule();
  }

  /** Every frame the socket delivers; a snapshot means a gap may have opened. */
  onFrame(frame: Record<string, unknown>): void {
    if (frame.type === "session.snapshot") {
      void this.#load();
      return;
    }
    if (this.#series.add(frame)) this.#schedule();
  }

  /**
   * Reads the log from where the last read stopped: steps from before the
   * socket opened, or from a gap a resume could not fill. Frames the socket
   * also delivers are counted once (the series keys them by seq).
   */
  async #load(): Promise<void> {
    const session = this.#session;
    const generation = this.#generation;
    if (!session) return;
    if (this.#loading === generation) {
      this.#again = true;
      return;
    }
    this.#loading = generation;
    try {
      do {
        this.#again = false;
        for (;;) {
          let page: { events: Record<string, unknown>[]; next_after: number };
          try {
            page = await sessionApi(
              session,
              "GET",
              `/events?after=${this.#after}&limit=${PAGE}`
            );
          } catch (error) {
            const oldest =
              error instanceof ApiError && error.details?.oldest_seq;
            if (typeof oldest !== "number" || oldest - 1 <= this.#after)
              throw error;
            // The oldest events were trimmed: plot what is still kept.
            this.#after = oldest - 1;
            continue;
          }
          if (generation !== this.#generation) return;
          for (const event of page.events) this.#series.add(event);
          this.#schedule();
          this.#after = Math.max(this.#after, page.next_after);
          if (page.events.length < PAGE) break;
        }
      } while (this.#again && generation === this.#generation);
    } catch (error) {
      if (generation === this.#generation) this.#onError(error);
    } finally {
      if (this.#loading === generation) this.#loading = -1;
    }
  }

  /** One draw per burst: a step's frames arrive together in one message. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#render();
    });
  }

  #render(): void {
    const { points, episodes } = this.#series.read();
    this.#width = Math.round(this.element.clientWidth);
    const width = Math.max(320, this.#width || 640);
    const empty = episodes.length === 0;
    this.#steps.style.display = empty ? "none" : "";
    this.#episodes.style.display = empty ? "none" : "";
    this.#numbers.hidden = empty;
    const current = this.#status?.episode ?? episodes.at(-1)?.episode;
    if (empty) {
      fill(
        this.#summary,
        "No episode yet: rewards are plotted here as the session steps."
      );
      return;
    }
    this.#drawSteps(points, width);
    this.#drawEpisodes(episodes, width, current);
    this.#drawSummary(points, episodes, current);
    fill(
      this.#table,
      ...episodes
        .slice(-TABLE_ROWS)
        .map((e) =>
          h(
            "tr",
            { "data-episode": e.episode },
            h("td", {}, e.episode),
            h("td", {}, e.partial ? `…${e.steps}` : e.steps),
            h("td", {}, num(e.return)),
            h("td", {}, ending(e, e.episode === current))
          )
        )
    );
  }

  #drawSummary(
    points: StepPoint[],
    episodes: EpisodeSummary[],
    current: number | undefined
  ): void {
    const ended = episodes.filter((e) => e.ended);
    const mean =
      ended.length === 0
        ? undefined
        : ended.reduce((sum, e) => sum + e.return, 0) / ended.length;
    const now = episodes.find((e) => e.episode === current) ?? episodes.at(-1)!;
    fill(
      this.#summary,
      h("span", { class: "key reward" }, "reward per step"),
      h("span", { class: "key return" }, "return"),
      h("span", { class: "key episode" }, "return per episode"),
      h(
        "span",
        {},
        `${plural(points.length, "step")} over ${plural(episodes.length, "episode")}; ` +
          `episode ${now.episode}: return ${num(now.return)}` +
          (mean === undefined
            ? ""
            : `; mean return of ${plural(ended.length, "ended episode")}: ${num(mean)}`)
      )
    );
  }

  #drawSteps(points: StepPoint[], width: number): void {
    const frame: Frame = { width, height: 170, ...margins };
    const el = this.#steps;
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
        const top = y(r.max);
        const tall = y(r.min) - top;
        el.append(
          svg(
            "rect",
            {
              x: x0(from),
              // A bucket of equal rewards is a 2 px mark centred on them.
              y: tall < 2 ? top - 1 : top,
              width: Math.max(1, (x0(to) - x0(from)) * 0.8),
              height: Math.max(2, tall),
              class: "reward-range"
            },
            svg(
              "title",
              {},
              `steps ${from + 1}–${to}: reward ${num(r.min)} to ${num(r.max)}, return ${num(last.total)} after step ${last.step} of episode ${last.episode}`
            )
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
  }

  #drawEpisodes(
    episodes: EpisodeSummary[],
    width: number,
    current: number | undefined
  ): void {
    const frame: Frame = { width, height: 130, ...margins };
    const el = this.#episodes;
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
        const top = y(r.max);
        const tall = y(r.min) - top;
        el.append(
          svg(
            "rect",
            {
              x: x0(from),
              y: tall < 2 ? top - 1 : top,
              width: Math.max(1, (x0(to) - x0(from)) * 0.8),
              height: Math.max(2, tall),
              class: "episode-range"
            },
            svg(
              "title",
              {},
              `episodes ${slice[0]!.episode}–${slice.at(-1)!.episode}: return ${num(r.min)} to ${num(r.max)}, mean ${num(mean)}`
            )
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
  }
}
