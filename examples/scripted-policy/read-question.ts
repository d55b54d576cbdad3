/** @module Turns an arithmetic question in words or symbols into an expression, for the scripted policy. */

import { evaluate } from "./arithmetic";

const NUMBER = String.raw`-?\d+(?:\.\d+)?`;

/** Phrases naming an operation on two numbers, tried before symbols. */
const PHRASES: [RegExp, (a: string, b: string) => string][] = [
  [new RegExp(`(${NUMBER}) ?% of (${NUMBER})`), (a, b) => `${a} / 100 * ${b}`],
  [new RegExp(`sum of (${NUMBER}) and (${NUMBER})`), (a, b) => `${a} + ${b}`],
  [
    new RegExp(`product of (${NUMBER}) and (${NUMBER})`),
    (a, b) => `${a} * ${b}`
  ],
  [
    new RegExp(`difference (?:between|of) (${NUMBER}) and (${NUMBER})`),
    (a, b) => `${a} - ${b}`
  ],
  [
    new RegExp(`quotient of (${NUMBER}) (?:and|by) (${NUMBER})`),
    (a, b) => `${a} / ${b}`
  ],
  [
    new RegExp(`(${NUMBER}) (?:to the power of|raised to) (${NUMBER})`),
    (a, b) => `${a} ** ${b}`
  ],
  [
    new RegExp(`subtract (${NUMBER}) from (${NUMBER})`),
    (a, b) => `${b} - ${a}`
  ],
  [
    new RegExp(`add (${NUMBER}) (?:and|to) (${NUMBER})`),
    (a, b) => `${a} + ${b}`
  ],
  [
    new RegExp(`multiply (${NUMBER}) (?:and|by) (${NUMBER})`),
    (a, b) => `${a} * ${b}`
  ],
  [new RegExp(`divide (${NUMBER}) by (${NUMBER})`), (a, b) => `${a} / ${b}`]
];

/** Operation words written between two numbers. */
const WORDS: [RegExp, string][] = [
  [/\bmultiplied by\b|\btimes\b|×|(?<=\d\s*)x(?=\s*\d)/g, " * "],
  [/\bdivided by\b|÷/g, " / "],
  [/\bplus\b|\badded to\b/g, " + "],
  [/\bminus\b|−/g, " - "],
  [/\bmodulo\b|\bmod\b/g, " % "],
  [/\bto the power of\b|\^/g, " ** "],
  [/(\d)\s*squared\b/g, "$1 ** 2"],
  [/(\d)\s*cubed\b/g, "$1 ** 3"]
];

/**
 * The expression a question asks for, or undefined when none can be read.
 * Thousands separators are dropped; the longest run of numbers and
 * operators that evaluates wins.
 *
 * @example
 * readExpression("What is 12 times 7?"); // "12 * 7"
 */
export const readExpression = (question: string): string | undefined => {
  const text = question.toLowerCase().replace(/(\d),(?=\d{3}\b)/g, "$1");
  for (const [pattern, build] of PHRASES) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined && match[2] !== undefined)
      return build(match[1], match[2]);
  }
  let symbolic = text;
  for (const [pattern, replacement] of WORDS)
    symbolic = symbolic.replace(pattern, replacement);
  const runs = symbolic.match(/[-+*/%().\d\s]*\d[-+*/%().\d\s]*/g) ?? [];
  const candidates = runs
    .map((run) =>
      run
        .trim()
        .replace(/[.\s]+$/, "")
        .replace(/^[^\d(-]+/, "")
        .replace(/\s+/g, " ")
    )
    .filter((run) => /\d\s*(?:\*\*|[-+*/%])\s*[\d(-]/.test(run))
    .filter((run) => evaluate(run) !== undefined)
    .sort((a, b) => b.length - a.length);
  return candidates[0];
};

/** The last number in a text, the scripted policy's guess when nothing else works. */
export const lastNumber = (text: string): number | undefined => {
  const numbers = text
    .replace(/(\d),(?=\d{3}\b)/g, "$1")
    .match(new RegExp(NUMBER, "g"));
  const last = numbers?.at(-1);
  return last === undefined ? undefined : Number(last);
};
