/** @module Reads the arithmetic in common word-problem shapes (change, sharing, rates, areas, discounts). */

const N = String.raw`(\d+(?:\.\d+)?)`;
const all = (text: string, pattern: RegExp): RegExpMatchArray[] => [
  ...text.matchAll(pattern)
];

/** `a*b + c*d` of the pairs a pattern finds, or undefined for none. */
const sumOfProducts = (text: string, pattern: RegExp): string | undefined => {
  const terms = all(text, pattern).map((m) => `${m[1]} * ${m[2]}`);
  return terms.length === 0 ? undefined : terms.join(" + ");
};

/**
 * Each reader looks for the phrases of one kind of problem and returns
 * the expression that answers it. They key on the phrases, not on whole
 * sentences, so rewordings around them still read.
 */
const READERS: ((text: string) => string | undefined)[] = [
  // "buys 3 pens at $2 each and 4 … at $5 each, and pays with $40 … change"
  (text) => {
    if (!/change/.test(text)) return undefined;
    const paid = new RegExp(String.raw`pays? (?:with )?\$?${N}`).exec(text);
    const cost = sumOfProducts(
      text,
      new RegExp(String.raw`${N} [a-z ]*?(?:at|for) \$?${N} each`, "g")
    );
    return paid && cost ? `${paid[1]} - (${cost})` : undefined;
  },
  // "bakes 50 cookies, keeps 2 and shares the rest equally among 4 boxes"
  (text) => {
    const m = new RegExp(
      `${N} [a-z ,]*?keeps ${N}.*?(?:among|between|into) ${N}`
    ).exec(text);
    return m ? `(${m[1]} - ${m[2]}) / ${m[3]}` : undefined;
  },
  // "at 60 km per hour for 2 hours, then at 40 km per hour for 1 more hour"
  (text) =>
    sumOfProducts(
      text,
      new RegExp(
        `${N} [a-z]* ?(?:per|an|a|/) ?hour for ${N}(?: more)? hours?`,
        "g"
      )
    ),
  // "12 m long and 8 m wide … a square patio with 3 m sides … left"
  (text) => {
    const m = new RegExp(
      `${N} ?[a-z]* long and ${N} ?[a-z]* wide.*?square[a-z ]*?with ${N} ?[a-z]* sides?`
    ).exec(text);
    return m ? `${m[1]} * ${m[2]} - ${m[3]} ^ 2` : undefined;
  },
  // "costs $120 … 25% off … How many dollars do 3 jackets cost"
  (text) => {
    const price = new RegExp(String.raw`costs? \$${N}`).exec(text);
    const off = new RegExp(`${N} ?% off`).exec(text);
    if (!price || !off) return undefined;
    const count = new RegExp(`(?:do|does|for) ${N} [a-z]+ cost`).exec(text);
    const n = count?.[1] ?? "1";
    return `${n} * (${price[1]} - ${price[1]} * ${off[1]} / 100)`;
  }
];

/**
 * The expression a word problem asks for, or undefined.
 *
 * @example
 * readWordProblem("A train runs at 60 km per hour for 2 hours, then at 40 km per hour for 1 more hour.");
 * // "60 * 2 + 40 * 1"
 */
export const readWordProblem = (question: string): string | undefined => {
  const text = question.toLowerCase().replace(/(\d),(?=\d{3}\b)/g, "$1");
  for (const read of READERS) {
    const expression = read(text);
    if (expression !== undefined) return expression;
  }
  return undefined;
};
