/** @module Group-relative advantages (GRPO): each episode's return against its group's. */

/** What an advantage is computed from: a trajectory line, or anything shaped like one. */
export interface AdvantageInput {
  group_id: number | null;
  return: number;
  error: unknown;
}

export interface AdvantageOptions<T extends AdvantageInput = AdvantageInput> {
  /**
   * Added to the standard deviation before dividing (default 1e-6, as
   * verl's GRPO; TRL adds 1e-4), so a group with almost no spread does
   * not blow its advantages up.
   */
  epsilon?: number;
  /**
   * `population` (the default, dividing by n: the spread of these very
   * returns) or `sample` (dividing by n − 1, as torch.std does, so as TRL
   * and verl do). With n = 8 the sample one is √(8/7) ≈ 1.07 times larger.
   */
  std?: "population" | "sample";
  /** What is normalised (default the return); e.g. `(t) => t.group_score ?? null` for a judge's scores. Null leaves a trajectory out. */
  score?: (t: T) => number | null | undefined;
}

export interface GroupAdvantage {
  group_id: number;
  /** Episodes of the group that had a score (no error). */
  scored: number;
  mean: number | null;
  std: number | null;
  /** At least two scored, all alike: every advantage is 0, nothing to learn from. */
  flat: boolean;
}

export interface Advantaged {
  advantage: number | null;
  group_mean: number | null;
  group_std: number | null;
}

export interface AdvantagesResult<T> {
  /** The input's trajectories in their order, each a copy with `advantage`, `group_mean`, `group_std`. */
  trajectories: (T & Advantaged)[];
  /** One per group, in group order. */
  groups: GroupAdvantage[];
  /** How many groups are flat. */
  flat_groups: number;
}

export const DEFAULT_EPSILON = 1e-6;

const NONE: Advantaged = { advantage: null, group_mean: null, group_std: null };

/**
 * Groups trajectories by `group_id` and gives each the GRPO advantage of
 * its return: (return − mean) / (std + ε) over its group's episodes
 * without an error. Those with an error, and those without a group, get
 * `advantage: null`. When every score of a group is the same the std is
 * exactly 0 and every advantage exactly 0 (no rounding noise). Pure: the
 * input is not changed, so it runs as well over a trajectories file.
 *
 * @example
 * const rows = readFileSync("trajectories.jsonl", "utf8").trim().split("\n").map((l) => JSON.parse(l));
 * const { trajectories, flat_groups } = groupAdvantages(rows);
 */
export const groupAdvantages = <T extends AdvantageInput>(
  trajectories: readonly T[],
  options: AdvantageOptions<T> = {}
): AdvantagesResult<T> => {
  const epsilon = options.epsilon ?? DEFAULT_EPSILON;
  if (!(Number.isFinite(epsilon) && epsilon >= 0)) {
    throw new RangeError("epsilon must be a finite number ≥ 0.");
  }
  const scoreOf = (t: T): number | null => {
    if (t.error !== null && t.error !== undefined) return null;
    const value = options.score ? options.score(t) : t.return;
    return typeof value === "number" && Number.isFinite(value) ? value : null;
  };
  const members = new Map<number, T[]>();
  for (const t of trajectories) {
    if (t.group_id === null || t.group_id === undefined) continue;
    const list = members.get(t.group_id);
    if (list) list.push(t);
    else members.set(t.group_id, [t]);
  }
  const stats = new Map<number, GroupAdvantage>();
  for (const [group_id, list] of members) {
    const scores = list.map(scoreOf).filter((s): s is number => s !== null);
    stats.set(group_id, statsOf(group_id, scores, options.std ?? "population"));
  }
  const out = trajectories.map((t): T & Advantaged => {
    const g = t.group_id === null ? undefined : stats.get(t.group_id);
    if (g === undefined) return { ...t, ...NONE };
    const score = scoreOf(t);
    const advantage =
      score === null || g.mean === null || g.std === null
        ? null
        : g.std === 0
          ? 0
          : (score - g.mean) / (g.std + epsilon);
    return { ...t, advantage, group_mean: g.mean, group_std: g.std };
  });
  const groups = [...stats.values()].sort((a, b) => a.group_id - b.group_id);
  return {
    trajectories: out,
    groups,
    flat_groups: groups.filter((g) => g.flat).length
  };
};

const statsOf = (
  group_id: number,
  scores: number[],
  kind: "population" | "sample"
): GroupAdvantage => {
  const n = scores.length;
  if (n === 0) {
    return { group_id, scored: 0, mean: null, std: null, flat: false };
  }
  const alike = scores.every((s) => s === scores[0]);
  const mean = alike ? scores[0]! : scores.reduce((a, s) => a + s, 0) / n;
  // Two passes, so equal scores give exactly 0; one score has no spread
  // (and no sample std: 0 rather than 0/0).
  const divisor = kind === "sample" ? n - 1 : n;
  const std =
    alike || divisor === 0
      ? 0
      : Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / divisor);
  return { group_id, scored: n, mean, std, flat: n >= 2 && alike };
};
