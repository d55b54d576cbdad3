/** @module The contract: tool schemas are valid JSON Schema that accept their examples, every task resets, a finished episode refuses steps, rewards are finite. */

import * as z from "zod";
import { type Played, type TaskChoice, taskName } from "./episode";
import { type CheckRow, row } from "./report";
import type { Target } from "./target";

const message = (error: unknown) =>
  error instanceof Error ? error.message : String(error);

/**
 * Each tool's parameters must read back as JSON Schema (zod's reader is
 * the judge), be an object schema, and accept each of its `examples`, as
 * the tool's own input must.
 */
export const toolSchemas = (target: Target): CheckRow => {
  let examples = 0;
  // Valid JSON Schema that zod's reader does not take (if/then/else):
  // such a tool's examples cannot be checked, which the detail says.
  const unread: string[] = [];
  for (const t of target.toolSchemas) {
    const { name, parameters } = t.function;
    let schema: z.ZodType;
    try {
      schema = z.fromJSONSchema(parameters as never);
    } catch (error) {
      if (/not supported/i.test(message(error))) {
        unread.push(name);
        continue;
      }
      return row(
        "contract: tool schemas",
        `${name}: not a valid JSON Schema (${message(error)})`,
        ""
      );
    }
    if (parameters.type !== "object")
      return row(
        "contract: tool schemas",
        `${name}: parameters are not an object schema`,
        ""
      );
    const listed = parameters.examples;
    for (const example of Array.isArray(listed) ? listed : []) {
      examples++;
      const input = target.toolInput?.(name);
      if (
        !schema.safeParse(example).success ||
        input?.safeParse(example).success === false
      )
        return row(
          "contract: tool schemas",
          `${name}: its example ${JSON.stringify(example)} is refused`,
          ""
        );
    }
  }
  return row(
    "contract: tool schemas",
    undefined,
    `${target.toolSchemas.length} tool schema(s) valid${examples > 0 ? `, ${examples} example(s) accepted` : ", no examples declared"}${unread.length > 0 ? `; ${unread.join(", ")} read as valid, with keywords zod cannot check examples against` : ""}`
  );
};

/** Every task of the sample resets; the first that throws is named. */
export const resets = async (
  target: Target,
  tasks: TaskChoice[]
): Promise<CheckRow> => {
  const session = await target.open();
  for (const task of tasks) {
    try {
      await session.reset(task);
    } catch (error) {
      return row(
        "contract: resets",
        `${taskName(task)} does not reset: ${message(error)}`,
        ""
      );
    }
  }
  return row("contract: resets", undefined, `${tasks.length} task(s) reset`);
};

/**
 * A step after the episode ended must be refused: a RoostError locally, a
 * 409 with the `{error}` body on a server. `end` replays an episode that
 * ended before; when none did, or the replay does not end, the check is
 * skipped.
 */
export const stepAfterDone = async (
  target: Target,
  end:
    | (() => Promise<{ done: boolean; step: () => Promise<unknown> }>)
    | undefined
): Promise<CheckRow> => {
  const check = "contract: step after done";
  const replay = end === undefined ? undefined : await end();
  if (replay === undefined || !replay.done)
    return {
      check,
      status: "SKIP",
      detail: "no episode ended within the step limit"
    };
  try {
    await replay.step();
  } catch (error) {
    return row(check, target.refusal(error), "refused");
  }
  return row(check, `${target.name} took a step after its episode ended`, "");
};

/** Every reward any run saw is a finite number. */
export const finiteRewards = (runs: Played[]): CheckRow => {
  const all = runs.flatMap((p) => p.steps.map((s) => s.reward));
  const bad = all.find((r) => typeof r !== "number" || !Number.isFinite(r));
  return row(
    "contract: finite rewards",
    bad === undefined ? undefined : `a step returned reward ${bad}`,
    `${all.length} step reward(s), all finite`
  );
};
