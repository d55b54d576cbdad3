/**
 * @module The catalog example's tests' reading of its answers: a step's
 * and a direct call's shape, a direct call, its rows, and a
 * case-insensitive match.
 */

import { expect } from "vitest";
import { json, send, type TestSession } from "./helpers";

export interface Step {
  observations: { content: string; is_error: boolean }[];
  reward: number;
  done: boolean;
}

export interface Direct {
  content: string;
  is_error: boolean;
}

export type Row = Record<string, string | number>;

/** A direct call (not a step): the tool's content, parsed when it is JSON. */
export const direct = async (
  s: TestSession,
  tool: string,
  args: Record<string, unknown>
): Promise<Direct> =>
  json<Direct>(
    await s.call(`/tools/${tool}`, send("POST", { arguments: args }))
  );

export const rowsOf = (out: Direct): Row[] => {
  expect(out.is_error, out.content).toBe(false);
  return (JSON.parse(out.content) as { rows: Row[] }).rows;
};

export const has = (text: string, words: string) =>
  text.toLowerCase().includes(words.toLowerCase());
