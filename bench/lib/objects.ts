/** @module The objects every scenario stores: about 250 bytes of JSON each, all different. */

const FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do ";

// A type alias, not an interface, so it stays assignable to JSON object types.
export type BenchObject = {
  id: number;
  title: string;
  tags: string[];
  score: number;
  body: string;
};

/** Object number `n`: unique, so the store never folds it into a `[repeat]`. */
export const benchObject = (n: number): BenchObject => ({
  id: n,
  title: `Item ${n}`,
  tags: ["bench", `group-${n % 97}`],
  score: (n * 7919) % 1000,
  body: `${FILLER}${FILLER}${FILLER}`.slice(0, 150 + (n % 10))
});
