/**
 * @module The curriculum's weighting, one copy for both sides: the
 * client's sampler (client/task-sampler.ts) and the server's sample route
 * (layers/task-stats/routes.ts) draw with the same prior, the same weight
 * and the same seeded generator, so a seeded draw names the same indexes
 * wherever it is made from the same statistics.
 */

/**
 * P(signal) = 1 − p^G − (1 − p)^G: the chance that a group of G episodes
 * of a task with pass rate p is neither all right nor all wrong.
 *
 * @example
 * signalWeight(0.5, 8); // 0.9921875
 * signalWeight(1, 8); // 0
 */
export const signalWeight = (p: number, groupSize: number): number =>
  Math.max(0, 1 - p ** groupSize - (1 - p) ** groupSize);

/**
 * A task's estimated pass rate: the mean of Beta(1 + successes, 1 + failures).
 * The uniform prior makes an untried task p = 0.5, the most promising
 * estimate there is (optimism: it is tried before a known one is repeated),
 * and keeps one lucky group from writing a task off.
 */
export const passRate = (attempts: number, successes: number): number =>
  (successes + 1) / (attempts + 2);

/**
 * The group size the weights assume. Single episodes (G = 1) have no group
 * and so never any "signal"; they are weighted as pairs (G = 2, weight
 * 2p(1 − p)), which still ranks tasks by how uncertain their outcome is.
 */
export const weightGroupSize = (groupSize: number): number =>
  Math.max(2, groupSize);

/** A task's curriculum weight from its record (none: never tried) for groups of `groupSize`. */
export const taskWeight = (
  record: { attempts: number; successes: number } | undefined,
  groupSize: number
): number =>
  signalWeight(
    passRate(record?.attempts ?? 0, record?.successes ?? 0),
    weightGroupSize(groupSize)
  );

/**
 * A seeded generator of numbers in [0, 1) (mulberry32): the same seed
 * gives the same sequence on every runtime.
 *
 * @example
 * const random = seededRandom(7); random(); // the same number every time
 */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** An index drawn in proportion to its weight; all zero cannot happen (the prior keeps every weight above 0), but would fall back to uniform. */
export const pickWeighted = (
  weights: readonly number[],
  total: number,
  random: () => number
): number => {
  if (!(total > 0)) return Math.floor(random() * weights.length);
  let r = random() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i]!;
    if (r < 0) return i;
  }
  return weights.length - 1;
};

/** A task with a record and its weight; tasks without one weigh the prior's weight. */
export interface WeightedTask {
  index: number;
  weight: number;
}

/**
 * A drawer over indexes 0 … taskCount − 1 where only the tasks in `known`
 * (ascending by index, each below taskCount) have their own weight and
 * every other weighs `untried`: a draw costs a binary search over the
 * known tasks, never a pass over all the indexes, so a million-task split
 * with a few hundred tried costs what those few hundred do. It names the
 * index a pass over every weight in order would (`pickWeighted`).
 *
 * @example
 * const draw = weightedDraw(1_000_000, [{ index: 3, weight: 0 }], 0.99);
 * draw(seededRandom(1)); // any index but 3
 */
export const weightedDraw = (
  taskCount: number,
  known: readonly WeightedTask[],
  untried: number
): ((random: () => number) => number) => {
  // before[j]: the weight of every index below known[j].index.
  const before = new Array<number>(known.length);
  let sum = 0;
  let last = 0;
  for (const [j, task] of known.entries()) {
    sum += (task.index - last) * untried;
    before[j] = sum;
    sum += task.weight;
    last = task.index + 1;
  }
  const total = sum + (taskCount - last) * untried;
  /** The index `r` (in [0, total)) lands on in the gap of untried tasks starting at `from`, below `end`. */
  const inGap = (r: number, from: number, end: number) =>
    Math.min(end - 1, from + Math.floor(r / untried));
  return (random) => {
    if (!(total > 0)) return Math.floor(random() * taskCount);
    const r = random() * total;
    // The last known task starting at or below r.
    let lo = 0;
    let hi = known.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (before[mid]! <= r) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at === -1) return inGap(r, 0, known[0]?.index ?? taskCount);
    const task = known[at]!;
    const past = r - before[at]!;
    if (past < task.weight) return task.index;
    return inGap(
      past - task.weight,
      task.index + 1,
      known[at + 1]?.index ?? taskCount
    );
  };
};
