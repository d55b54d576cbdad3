/** @module The scaffold's environment and its test: a template to rewrite, showing a tool, the hidden store, typed state and a reward. */

export const ENVIRONMENT = `/**
 * @module The lock: find a secret code, told after each try how many of its
 * digits are right. A plain module (it imports roost-edge/core only), so
 * test/ runs it in Node and src/worker.ts serves it.
 */

import { defineEnvironment, defineState, generated, toolCalls } from "roost-edge/core";
import * as z from "zod";

/**
 * A small seeded generator (mulberry32): numbers in [0, 1), the same ones
 * for the same seed. Everything random in an episode comes from its task's
 * seed, never from Math.random or the clock, so a task replays exactly:
 * a training run can repeat it, and \`roost-edge validate\` checks it does.
 */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/**
 * The code a task sets: an episode is reproducible without the code in the
 * task, which every client can read.
 */
export const codeFor = (seed: number, digits: number): string => {
  const random = seededRandom(seed);
  let code = "";
  for (let i = 0; i < digits; i++) code += String(Math.floor(random() * 10));
  return code;
};

export const lock = defineEnvironment({
  name: "lock",
  description:
    "Open a combination lock: find its code from how many digits each try gets right.",
  // What a session is asked to do; clients pass it when they create one.
  task: z
    .object({
      digits: z.number().int().min(1).max(8).default(4),
      seed: z.number().int().min(0).default(0)
    })
    .default({ digits: 4, seed: 0 }),
  // Task i of the dataset is seed i: every session created with
  // \`task_index: 7\` (a training run's, a GRPO group's) gets the same lock.
  dataset: generated({ get: (seed) => ({ digits: 4, seed }) }),
  // Typed state: what clients and the model may see of the episode.
  state: defineState({
    tries: { type: z.array(z.string()).default([]) },
    best: { type: z.number().int().default(0) }
  }),
  maxSteps: 20,
  tools: (tool) => ({
    try_code: tool({
      description:
        "Try a code on the lock. Answers how many digits are right and in the right place.",
      input: z
        .object({
          code: z.string().regex(/^\\d+$/).describe('The digits to try, e.g. "0123".')
        })
        .meta({ examples: [{ code: "0123" }] }),
      run: ({ code }, ctx) => {
        // The hidden store: tools read and write it; no client or model sees it.
        const secret = ctx.hidden.get<string>("code");
        if (secret === undefined) throw new Error("Reset first.");
        // A thrown error is the model's to read (is_error), and no try.
        if (code.length !== secret.length)
          throw new Error(\`The code has \${secret.length} digits.\`);
        ctx.state.set("tries", code); // a list: each try is appended
        const right = [...code].filter((digit, i) => digit === secret[i]).length;
        ctx.state.set("best", Math.max(ctx.state.get("best"), right));
        if (right === secret.length) {
          ctx.episode.end({ reward: 1 });
          return "Open!";
        }
        return \`\${right} of \${secret.length} digits right.\`;
      }
    })
  }),
  reset: ({ task, ctx }) => {
    ctx.hidden.set("code", codeFor(task.seed, task.digits));
    // Each seed is its own lock and says which: what an episode shows
    // depends on its task (validate checks tasks do not all look alike).
    return \`Lock \${task.seed} has a \${task.digits}-digit code. Call try_code to open it.\`;
  },
  // \`roost-edge validate\`'s reference policy. It may read the task, which
  // the model never sees: from the seed it knows the code and opens the
  // lock at once, so an episode can return 1 and validate checks that
  // policies knowing nothing stay well below it.
  validation: {
    oracle: (task) => () =>
      toolCalls({
        name: "try_code",
        arguments: { code: codeFor(task.seed, task.digits) }
      })
  }
});
`;

export const ENVIRONMENT_TEST = `// The environment in plain Node, no server: createLocalSession runs the
// same reset and step a deployed session does, in memory.
import { createLocalSession, toolCalls } from "roost-edge/core";
import { formatReport, validateEnvironment } from "roost-edge/validate";
import { describe, expect, it } from "vitest";
import { codeFor, lock } from "../src/index";

const tryCode = (code: string) =>
  toolCalls({ name: "try_code", arguments: { code } });

describe("lock", () => {
  it("hides the code, counts the right digits and opens with reward 1", async () => {
    const session = createLocalSession(lock);
    const { observations } = await session.reset({ task: { seed: 7 } });
    const code = codeFor(7, 4);
    expect(session.parts.hidden.get("code")).toBe(code);
    expect(JSON.stringify(observations)).not.toContain(code);

    // Every digit off by one: none right.
    const wrong = [...code].map((d) => String((Number(d) + 1) % 10)).join("");
    const miss = await session.step(tryCode(wrong));
    expect(miss).toMatchObject({ reward: 0, done: false });
    expect(miss.observations[0]?.content).toBe("0 of 4 digits right.");

    const open = await session.step(tryCode(code));
    expect(open).toMatchObject({ reward: 1, done: true });
    expect(session.parts.state.get("tries")).toEqual([wrong, code]);
    expect(session.parts.state.get("best")).toBe(4);
  });

  it("answers a code of the wrong length as a tool error, not a try", async () => {
    const session = createLocalSession(lock);
    await session.reset({ task: { seed: 1, digits: 3 } });
    const out = await session.step(tryCode("12345"));
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.done).toBe(false);
    expect(session.parts.state.get("tries")).toEqual([]);
  });

  // What \`npm run validate\` checks: a task replays exactly, the oracle
  // opens every lock, and policies that know nothing do not.
  it("passes roost-edge validate", async () => {
    const report = await validateEnvironment(lock);
    expect(report.ok, formatReport(report)).toBe(true);
  }, 60_000);
});
`;
