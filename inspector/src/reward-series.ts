/**
 * @module A session's rewards as the plot reads them: one point per `step`
 * event, kept by seq so the event log and the socket can both deliver the
 * same step without it counting twice, grouped into episodes.
 */

import type { RewardComponents } from "../../src/protocol/reward-components";

export interface StepPoint {
  seq: number;
  episode: number;
  /** The step's number within its episode (1 for the first). */
  step: number;
  reward: number;
  done: boolean;
  truncated: boolean;
  /** The episode's return after this step. */
  total: number;
  /** What each rubric component scored, when the environment has rubrics. */
  components?: RewardComponents;
}

export interface EpisodeSummary {
  episode: number;
  steps: number;
  return: number;
  /** The last step ended it (done or truncated). */
  ended: boolean;
  /** Its first steps are not in the log (trimmed, or the session is a fork). */
  partial: boolean;
}

export interface Series {
  points: StepPoint[];
  episodes: EpisodeSummary[];
}

/** What `GET /v1/sessions/:id` says of the current episode. */
export interface EpisodeStatus {
  episode: number;
  steps: number;
  return: number;
  done?: boolean;
  truncated?: boolean;
}

export class RewardSeries {
  #steps = new Map<number, Omit<StepPoint, "total">>();
  /** Episodes a `reset` started, with or without steps since. */
  #started = new Set<number>();
  /** Seq ranges of steps that crashed: their frames did not happen. */
  #aborted: { episode: number; from: number; to: number }[] = [];
  #status: EpisodeStatus | undefined;

  clear(): void {
    this.#steps.clear();
    this.#started.clear();
    this.#aborted = [];
    this.#status = undefined;
  }

  /** Takes an event frame of any type; answers whether the series changed. */
  add(frame: Record<string, unknown>): boolean {
    const seq = frame.seq;
    const episode = frame.episode;
    if (typeof seq !== "number" || typeof episode !== "number") return false;
    if (frame.type === "reset") {
      if (this.#started.has(episode)) return false;
      this.#started.add(episode);
      return true;
    }
    if (frame.type === "step.aborted") {
      const range = { episode, from: Number(frame.first_seq), to: seq };
      this.#aborted.push(range);
      for (const key of this.#steps.keys()) {
        if (this.#isAborted(key, episode)) this.#steps.delete(key);
      }
      return true;
    }
    if (frame.type !== "step" || this.#steps.has(seq)) return false;
    if (this.#isAborted(seq, episode)) return false;
    this.#steps.set(seq, {
      seq,
      episode,
      step: Number(frame.step),
      reward: Number(frame.reward),
      done: frame.done === true,
      truncated: frame.truncated === true,
      ...(typeof frame.reward_components === "object" &&
      frame.reward_components !== null
        ? { components: frame.reward_components as RewardComponents }
        : {})
    });
    return true;
  }

  /**
   * The current episode's return as the session counts it. When the log
   * lacks the episode's first steps (a fork, or trimmed events) the return
   * line starts from what the missing steps earned instead of from 0.
   */
  setStatus(status: EpisodeStatus): boolean {
    const before = this.#status;
    this.#status = { ...status };
    return (
      before?.episode !== status.episode ||
      before.steps !== status.steps ||
      before.return !== status.return ||
      before.done !== status.done ||
      before.truncated !== status.truncated
    );
  }

  #isAborted(seq: number, episode: number): boolean {
    return this.#aborted.some(
      (r) => r.episode === episode && seq >= r.from && seq < r.to
    );
  }

  /** Points in seq order with running returns, and every episode's summary. */
  read(): Series {
    const steps = [...this.#steps.values()].sort((a, b) => a.seq - b.seq);
    const byEpisode = new Map<number, typeof steps>();
    for (const s of steps) {
      const list = byEpisode.get(s.episode);
      if (list) list.push(s);
      else byEpisode.set(s.episode, [s]);
    }
    const status = this.#status;
    const numbers = new Set([...this.#started, ...byEpisode.keys()]);
    // A fork's log starts at its copy: its current episode has no reset.
    if (status !== undefined && status.episode > 0) numbers.add(status.episode);
    const points: StepPoint[] = [];
    const episodes: EpisodeSummary[] = [];
    for (const episode of [...numbers].sort((a, b) => a - b)) {
      const list = byEpisode.get(episode) ?? [];
      let total = this.#baseline(episode, list);
      for (const s of list) {
        total += s.reward;
        points.push({ ...s, total });
      }
      const last = list.at(-1);
      if (last === undefined && status?.episode === episode) {
        // None of its steps are in the log: the session's count stands in.
        episodes.push({
          episode,
          steps: status.steps,
          return: status.return,
          ended: status.done === true || status.truncated === true,
          partial: status.steps > 0
        });
        continue;
      }
      episodes.push({
        episode,
        steps: last?.step ?? 0,
        return: total,
        ended: last !== undefined && (last.done || last.truncated),
        partial: (list[0]?.step ?? 1) > 1
      });
    }
    // Episodes interleave only if seqs do, which they cannot: still, keep
    // the points in seq order whatever the grouping did.
    points.sort((a, b) => a.seq - b.seq);
    return { points, episodes };
  }

  #baseline(episode: number, list: Omit<StepPoint, "total">[]): number {
    const status = this.#status;
    const first = list[0];
    const last = list.at(-1);
    if (
      status === undefined ||
      status.episode !== episode ||
      first === undefined ||
      first.step === 1 ||
      last?.step !== status.steps
    ) {
      return 0;
    }
    return status.return - list.reduce((sum, s) => sum + s.reward, 0);
  }
}
