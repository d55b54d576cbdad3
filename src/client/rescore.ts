/**
 * @module Re-scoring a trajectories file with other rubrics, without
 * running anything again: each step's args are rebuilt from the line.
 */

import type { AssistantMessage, ToolMessage } from "../messages/schema";
import type { RewardComponent, RewardComponents } from "../protocol";
import {
  type Advantaged,
  type AdvantageOptions,
  groupAdvantages
} from "./group-advantages";
import type { Trajectory } from "./trajectory";

/** A step rubric as `defineRubric` (and gate, sequence) make one; typed by shape, so the client needs no rewards code. */
export interface StepRubricLike {
  readonly kind: "rubric";
  score(
    args: never
  ): Promise<{ value: number; entries: [string, RewardComponent][] }>;
}

/** An episode rubric as `defineEpisodeRubric` makes one. */
export interface EpisodeRubricLike {
  readonly kind: "episode-rubric";
  readonly rubric: StepRubricLike;
  readonly gamma?: number;
}

/**
 * What re-scores a file. What is given replaces the environment's rubric
 * of that kind; what is not is kept as the file has it.
 */
export interface Rescoring {
  rubric?: StepRubricLike;
  episodeRubric?: EpisodeRubricLike;
  /** With groups: how advantages are recomputed (as `groupAdvantages`). */
  advantages?: AdvantageOptions<RescoredTrajectory>;
}

/** What a re-scored line keeps of what it had. */
export interface PreviousScores {
  rewards: number[];
  reward_components: (RewardComponents | null)[];
  return: number;
  advantage: number | null;
}

export type RescoredTrajectory = Trajectory & { previous: PreviousScores };

/** The trajectory lines a re-scoring reads: fields of older files may be missing. */
export type TrajectoryLine = Omit<
  Trajectory,
  "reward_components" | keyof Advantaged
> &
  Partial<Pick<Trajectory, "reward_components" | keyof Advantaged>>;

/**
 * The context a re-scored reward function gets: the line's task, and in
 * place of the session's state and stores, objects whose every read throws
 * saying why — the component reports that as its error, the rest scores.
 */
const absent = (what: string): never =>
  new Proxy(
    {},
    {
      get(_, key) {
        // What runtimes probe (await, JSON, inspection) must not throw.
        if (typeof key === "symbol" || key === "then" || key === "toJSON")
          return undefined;
        throw new Error(
          `ctx.${what} is not in a trajectories file: re-scoring sees the trajectory (observations, action, task), not the session. Score from those.`
        );
      }
    }
  ) as never;

const ERROR_CHARS = 1024;

const numberOf = (entry: RewardComponent | undefined): number =>
  typeof entry === "number" ? entry : (entry?.value ?? 0);

const isEpisodeEntry = (name: string) =>
  name === "episode" || name.startsWith("episode.");

/** γ^(T−t) × score for t = 1…T, as the server's episode rubrics spread it. */
const discount = (score: number, steps: number, gamma: number): number[] =>
  Array.from({ length: steps }, (_, i) => gamma ** (steps - 1 - i) * score);

/**
 * One line re-scored: its rewards, return and components as the given
 * rubrics score them, the old ones kept under `previous`. A step rubric
 * is scored with `{ observations (the step's tool messages), ctx: { task },
 * step, action, trajectory }`; the environment's own reward (its
 * `evaluate` or `step` component, or the whole step reward when it had no
 * rubric) is kept beside it. An episode rubric is scored on the last step
 * of an episode that ended (done or truncated), as the server scores it.
 * Advantages are left to `rescoreTrajectories`, which sees the groups.
 */
export const rescoreTrajectory = async (
  line: TrajectoryLine,
  rescoring: Rescoring
): Promise<RescoredTrajectory> => {
  const ctx = {
    task: line.task,
    state: absent("state"),
    hidden: absent("hidden"),
    environment: absent("environment")
  };
  const old = line.reward_components ?? line.rewards.map(() => null);
  const rewards: number[] = [];
  const components: (RewardComponents | null)[] = [];
  const last = line.rewards.length - 1;
  let oldEpisode: [string, RewardComponent][] = [];
  for (const [i, oldReward] of line.rewards.entries()) {
    const before = old[i] ?? null;
    const episodeEntries = Object.entries(before ?? {}).filter(([n]) =>
      isEpisodeEntry(n)
    );
    if (i === last) oldEpisode = episodeEntries;
    const withoutEpisode = oldReward - numberOf(before?.episode);
    const kept: RewardComponents | null =
      before === null
        ? null
        : Object.fromEntries(
            Object.entries(before).filter(([n]) => !isEpisodeEntry(n))
          );
    if (rescoring.rubric === undefined) {
      rewards.push(withoutEpisode);
      components.push(kept);
      continue;
    }
    const base =
      before === null
        ? { reward: withoutEpisode, entries: {} }
        : "evaluate" in before || "step" in before
          ? {
              reward: numberOf(before.evaluate ?? before.step),
              entries: Object.fromEntries(
                Object.entries(before).filter(
                  ([n]) => n === "evaluate" || n === "step"
                )
              )
            }
          : { reward: 0, entries: {} };
    const action = line.actions[i] as AssistantMessage;
    // The combinators catch their components' throws; a rubric written by
    // hand may throw itself, which fails this step's score, not the file.
    let scored: { value: number; entries: [string, RewardComponent][] };
    try {
      scored = await rescoring.rubric.score({
        observations: (line.observations[i + 1] ?? []).filter(
          (m): m is ToolMessage => m.role === "tool"
        ),
        ctx,
        step: i + 1,
        action,
        trajectory: line
      } as never);
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown.message : String(thrown);
      scored = { value: 0, entries: [["rubric", { value: 0, error }]] };
    }
    rewards.push(base.reward + scored.value);
    components.push({ ...base.entries, ...Object.fromEntries(scored.entries) });
  }
  if (last >= 0) {
    const ended = line.done || line.truncated;
    const episode =
      rescoring.episodeRubric === undefined
        ? {
            value: numberOf(Object.fromEntries(oldEpisode).episode),
            entries: oldEpisode
          }
        : ended
          ? await scoreEpisode(
              line,
              rescoring.episodeRubric,
              rewards,
              components,
              ctx
            )
          : { value: 0, entries: [] };
    rewards[last] = rewards[last]! + episode.value;
    if (episode.entries.length > 0)
      components[last] = {
        ...(components[last] ?? {}),
        ...Object.fromEntries(episode.entries)
      };
  }
  return {
    ...line,
    reward_components: components,
    rewards,
    return: rewards.reduce((a, r) => a + r, 0),
    advantage: line.advantage ?? null,
    group_mean: line.group_mean ?? null,
    group_std: line.group_std ?? null,
    previous: {
      rewards: line.rewards,
      reward_components: old,
      return: line.return,
      advantage: line.advantage ?? null
    }
  };
};

const scoreEpisode = async (
  line: TrajectoryLine,
  episode: EpisodeRubricLike,
  rewards: number[],
  components: (RewardComponents | null)[],
  ctx: object
): Promise<{ value: number; entries: [string, RewardComponent][] }> => {
  const steps = rewards.map((reward, i) => ({
    step: i + 1,
    action: line.actions[i],
    observations: line.observations[i + 1] ?? [],
    reward,
    components: components[i] ?? {}
  }));
  try {
    const scored = await episode.rubric.score({
      steps,
      ctx,
      done: line.done,
      truncated: line.truncated,
      trajectory: line
    } as never);
    const own: RewardComponent =
      episode.gamma === undefined
        ? scored.value
        : {
            value: scored.value,
            per_step: discount(scored.value, steps.length, episode.gamma)
          };
    return {
      value: scored.value,
      entries: [
        ["episode", own],
        ...scored.entries.map(([n, e]): [string, RewardComponent] => [
          `episode.${n}`,
          e
        ])
      ]
    };
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return {
      value: 0,
      entries: [
        [
          "episode",
          {
            value: 0,
            error:
              message.length > ERROR_CHARS
                ? `${message.slice(0, ERROR_CHARS)}… [${message.length - ERROR_CHARS} more characters cut]`
                : message
          }
        ]
      ]
    };
  }
};

/**
 * Every line re-scored (in order), then, when the file has groups, their
 * advantages recomputed from the new returns (the old ones stay in
 * `previous`). Also what a summary needs: returns before and after.
 *
 * @example
 * const { trajectories, mean_before, mean_after } = await rescoreTrajectories(lines, { rubric });
 */
export const rescoreTrajectories = async (
  lines: readonly TrajectoryLine[],
  rescoring: Rescoring
): Promise<{
  trajectories: RescoredTrajectory[];
  /** Mean return of the lines without an error, before and after; null with none. */
  mean_before: number | null;
  mean_after: number | null;
  /** With groups: how many have no spread after re-scoring. */
  flat_groups: number | null;
}> => {
  const rescored: RescoredTrajectory[] = [];
  for (const line of lines)
    rescored.push(await rescoreTrajectory(line, rescoring));
  const grouped = rescored.some((t) => t.group_id !== null);
  const advantaged = grouped
    ? groupAdvantages(rescored, rescoring.advantages)
    : undefined;
  const clean = rescored.filter((t) => t.error === null);
  const mean = (values: number[]) =>
    values.length === 0
      ? null
      : values.reduce((a, v) => a + v, 0) / values.length;
  return {
    trajectories: advantaged?.trajectories ?? rescored,
    mean_before: mean(clean.map((t) => t.previous.return)),
    mean_after: mean(clean.map((t) => t.return)),
    flat_groups: advantaged?.flat_groups ?? null
  };
};
