/** @module GSM8K-style word problems generated from a seed: the same index always gives the same problem. */

/** A problem with the expression that solves it, so tests can check the answer. */
export interface Problem {
  question: string;
  answer: number;
  /** Solves the question; `evaluate(expression) === answer`. */
  expression: string;
}

export const PROBLEM_COUNT = 5000;
const SEED = 0x5eed_2026;

/** mulberry32: tiny, fast, and good enough to vary a template. */
const random = (seed: number) => {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

type Rng = ReturnType<typeof random>;
const int = (rng: Rng, min: number, max: number): number =>
  min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T =>
  items[Math.floor(rng() * items.length)]!;

const NAMES = ["Ava", "Ben", "Chen", "Dina", "Eli", "Farah", "Gus", "Hana"];
const ITEMS = ["notebooks", "pencils", "apples", "candles", "stickers"];

type Template = (rng: Rng) => Problem;

const shopping: Template = (rng) => {
  const name = pick(rng, NAMES);
  const item = pick(rng, ITEMS);
  const [a, p] = [int(rng, 2, 9), int(rng, 2, 12)];
  const [b, price] = [int(rng, 2, 9), int(rng, 1, 6)];
  const cost = a * p + b * price;
  const bill = Math.ceil((cost + 1) / 20) * 20;
  return {
    question: `${name} buys ${a} ${item} at $${p} each and ${b} pens at $${price} each, and pays with $${bill}. How many dollars of change does ${name} get?`,
    answer: bill - cost,
    expression: `${bill} - (${a} * ${p} + ${b} * ${price})`
  };
};

const sharing: Template = (rng) => {
  const name = pick(rng, NAMES);
  const boxes = int(rng, 2, 12);
  const each = int(rng, 3, 25);
  const kept = int(rng, 1, 20);
  const total = boxes * each + kept;
  return {
    question: `${name} bakes ${total} cookies, keeps ${kept} and shares the rest equally among ${boxes} boxes. How many cookies go in each box?`,
    answer: each,
    expression: `(${total} - ${kept}) ÷ ${boxes}`
  };
};

const hours = (n: number) => (n === 1 ? "1 hour" : `${n} hours`);

const rates: Template = (rng) => {
  const [v, h, w, m] = [
    int(rng, 30, 120),
    int(rng, 1, 6),
    int(rng, 20, 90),
    int(rng, 1, 4)
  ];
  return {
    question: `A train runs at ${v} km per hour for ${hours(h)}, then at ${w} km per hour for ${hours(m).replace(" ", " more ")}. How many kilometres does it travel?`,
    answer: v * h + w * m,
    expression: `${v} × ${h} + ${w} × ${m}`
  };
};

const areas: Template = (rng) => {
  const side = int(rng, 2, 9);
  const long = int(rng, side + 1, 40);
  const wide = int(rng, side + 1, 30);
  return {
    question: `A garden is ${long} m long and ${wide} m wide. A square patio with ${side} m sides is built in it. How many square metres of garden are left?`,
    answer: long * wide - side ** 2,
    expression: `${long} * ${wide} - ${side}^2`
  };
};

// Prices are multiples of 20, so every listed percentage leaves whole dollars.
const discount: Template = (rng) => {
  const price = int(rng, 2, 30) * 20;
  const percent = pick(rng, [10, 20, 25, 50]);
  const count = int(rng, 1, 4);
  return {
    question: `A jacket costs $${price}. In a sale everything is ${percent}% off. How many dollars do ${count} jackets cost in the sale?`,
    answer: count * (price - (price * percent) / 100),
    expression: `${count} * (${price} - ${price} * ${percent} / 100)`
  };
};

const TEMPLATES: readonly Template[] = [
  shopping,
  sharing,
  rates,
  areas,
  discount
];

/**
 * Problem `index` of the generated set. Each index seeds its own generator,
 * so a problem never depends on which others were generated before it.
 */
export const makeProblem = (index: number): Problem => {
  if (!Number.isSafeInteger(index) || index < 0 || index >= PROBLEM_COUNT) {
    throw new RangeError(
      `Problem index must be a whole number in [0, ${PROBLEM_COUNT}), got ${index}.`
    );
  }
  return seededProblem(index);
};

/**
 * A problem for any seed (a whole number ≥ 0), without end. With `salt` 0
 * seed i < PROBLEM_COUNT is problem i; another salt draws another series.
 */
export const seededProblem = (seed: number, salt = 0): Problem => {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`A seed must be a whole number ≥ 0, got ${seed}.`);
  }
  // Math.imul reads the seed modulo 2^32; the high bits fold in apart.
  const high = Math.floor(seed / 2 ** 32);
  const rng = random(
    Math.imul(seed + 1, 0x9e3779b1) ^ SEED ^ Math.imul(high + salt, 0x85ebca6b)
  );
  return pick(rng, TEMPLATES)(rng);
};
