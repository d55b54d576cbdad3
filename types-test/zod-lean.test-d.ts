/**
 * @module `src/zod-lean-z.ts` names every export of zod but the four it
 * leaves out: a zod upgrade that adds one fails here until it is listed
 * (or left out on purpose). Checked by tsc, never run.
 */

import type * as zod from "zod";
import type * as lean from "../src/zod-lean-z";

type LeftOut = "locales" | "core" | "compile" | "fromJSONSchema";
type Missing = Exclude<
  keyof typeof zod,
  keyof typeof lean | LeftOut | "z" | "default"
>;
type Extra = Exclude<keyof typeof lean, keyof typeof zod>;

export const complete: [Missing, Extra] extends [never, never]
  ? true
  : { missing: Missing; extra: Extra } = true;
