/**
 * @module The session's rewards drawn: every step's reward with the
 * episode's running return, each rubric component under them, and each
 * episode's return. Steps come from the
 * event log once (`/events`) and then live from the socket's frames; a
 * series longer than the chart is wide is drawn as per-pixel ranges.
 */

import { ApiError, type Credentials, sessionApi } from "./api";
import { fill, h } from "./dom";
import { drawEpisodes, drawSteps, ending, plural } from "./reward-charts";
import { drawComponents } from "./reward-components";
import {
  type EpisodeStatus,
  type EpisodeSummary,
  RewardSeries,
  type StepPoint
} from "./reward-series";
import { num, svg } from "./svg-chart";

const PAGE = 1000;
/** Rows of the numbers table: the newest episodes. */
const TABLE_ROWS = 50;

export class RewardPlot {
  readonly element = h("div", { class: "reward-plot" });
  readonly #summary = h("p", {
    class: "plot-summary",
    "data-testid": "plot-summary"
  });
  readonly #steps = svg("svg", { "data-plot": "steps", role: "img" });
  readonly #components = svg("svg", { "data-plot": "components", role: "img" });
  readonly #legend = h("ul", {
    class: "component-legend",
    "data-testid": "component-legend"
  });
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
  /** The components the session's environment says are metrics (weight 0). */
  #metrics: ReadonlySet<string> = new Set();
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
      this.#components,
      this.#legend,
      this.#episodes,
      this.#numbers
    );
    new ResizeObserver(() => {
      const width = Math.round(this.element.clientWidth);
      if (width !== this.#width) this.#schedule();
    }).observe(this.element);
  }

  /**
   * Which components are metrics, from the environment's description: a
   * step's report cannot say (a metric's 1 looks like a reward's 1).
   */
  setMetrics(names: readonly string[]): void {
    this.#metrics = new Set(names);
    this.#schedule();
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
          let page: {
            events: Record<string, unknown>[];
            next_after: number;
            truncated?: true;
          };
          try {
            page = await sessionApi(
              session,
              "GET",
              // No `after` at first: every retained event, from the oldest,
              // without a 410 when the log's start was trimmed.
              `/events?${this.#after > 0 ? `after=${this.#after}&` : ""}limit=${PAGE}`
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
          // A page cut by its byte budget is short but not the end.
          if (!page.truncated && page.events.length < PAGE) break;
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
    this.#components.style.display = "none";
    this.#legend.hidden = true;
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
    drawSteps(this.#steps, points, width);
    const scored = drawComponents(
      this.#components,
      this.#legend,
      points,
      width,
      this.#metrics
    );
    this.#components.style.display = scored ? "" : "none";
    this.#legend.hidden = !scored;
    drawEpisodes(this.#episodes, episodes, width, current);
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
}
