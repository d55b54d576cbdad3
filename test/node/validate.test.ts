// `validateEnvironment` over local sessions: each deliberately broken
// environment fails exactly the check that names its defect, and every
// example environment passes them all. `roost-edge validate` runs the same
// over each example module and exits 0, or 1 on a broken one.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Environment } from "roost-edge/core";
import { describe, expect, it } from "vitest";
import { calculator } from "../../examples/calculator/index";
import { catalog } from "../../examples/catalog/index";
import { codeAnalyst } from "../../examples/code-analyst/index";
import { counter } from "../../examples/counter/index";
import { guess } from "../../examples/own-worker/guess";
import { story } from "../../examples/story/index";
import { parseArgs, UsageError } from "../../src/cli/args";
import { validateEnvironment } from "../../src/validate/index";
import { lateLeak } from "../fixtures/late-leak";
import {
  badExample,
  countsResets,
  emptyScores,
  ignoresIndex,
  keepsState,
  leaksAnswer,
  oneTask,
  sound
} from "./helpers/validate/broken";

const run = promisify(execFile);

/** The checks that failed, by name. */
const failed = async (env: Environment) =>
  (await validateEnvironment(env)).rows
    .filter((r) => r.status === "FAIL")
    .map((r) => r.check);

const rowOf = async (env: Environment, check: string) =>
  (await validateEnvironment(env)).rows.find((r) => r.check === check);

describe("validate catches each broken environment with the check for its defect", () => {
  it("passes the sound puzzle they are all made from", async () => {
    expect(await failed(sound)).toEqual([]);
  });

  it("an environment that ignores the task index fails determinism (isolation cannot judge it)", async () => {
    const report = await validateEnvironment(ignoresIndex);
    expect(report.ok).toBe(false);
    expect(
      report.rows.filter((r) => r.status === "FAIL").map((r) => r.check)
    ).toEqual(["determinism"]);
    expect(report.rows.find((r) => r.check === "determinism")?.detail).toMatch(
      /task 0 reset twice differs in the first observations/
    );
    expect(report.rows.find((r) => r.check === "isolation")?.status).toBe(
      "SKIP"
    );
  });

  it("an environment that plays one task whatever the index fails determinism", async () => {
    expect(await failed(oneTask)).toEqual(["determinism"]);
    expect((await rowOf(oneTask, "determinism"))?.detail).toBe(
      "3 different tasks all showed the same: the task is ignored"
    );
  });

  it("a tool whose declared example its schema refuses fails the contract", async () => {
    expect(await failed(badExample)).toEqual(["contract: tool schemas"]);
    expect((await rowOf(badExample, "contract: tool schemas"))?.detail).toBe(
      'say: its example {"n":1.5} is refused'
    );
  });

  it("an environment that shows its hidden answer fails no leakage", async () => {
    expect(await failed(leaksAnswer)).toEqual(["no leakage"]);
    expect((await rowOf(leaksAnswer, "no leakage"))?.detail).toBe(
      'hidden key "word" ("apple") appears in observations at reset of task 0'
    );
  });

  it("an environment whose empty answer scores 1 fails the empty-answers floor", async () => {
    expect(await failed(emptyScores)).toEqual(["floor: empty answers"]);
    const floor = await rowOf(emptyScores, "floor: empty answers");
    expect(floor?.value).toBe(1);
  });

  it("an environment that keeps state across resets fails isolation", async () => {
    expect(await failed(keepsState)).toEqual(["isolation"]);
    expect((await rowOf(keepsState, "isolation"))?.detail).toBe(
      "task 0 played again after a reset differs from the first in the first observations: something of the first survived"
    );
  });

  it("an environment whose reset hides what module memory counted fails isolation, naming the key", async () => {
    expect(await failed(countsResets)).toEqual(["isolation"]);
    expect((await rowOf(countsResets, "isolation"))?.detail).toBe(
      'a second reset of task 0 left the hidden store\'s key "round" unlike the first'
    );
  });

  it("a game that shows its answer only when the guesses run out fails no leakage, naming key, task, tool and step", async () => {
    // Random guesses are never words of its list, so they never run out:
    // the episode its tool's examples play to the end shows the answer.
    const report = await validateEnvironment(lateLeak);
    expect(report.rows.filter((r) => r.status === "FAIL")).toEqual([
      {
        check: "no leakage",
        status: "FAIL",
        detail:
          'hidden key "word" ("crane") appears in observations at step 6 of task 0 (tool guess), played by guess\'s examples'
      }
    ]);
  });

  it("an environment without an oracle fails the oracle check unless it says why", async () => {
    const { validation: _, ...rest } = sound;
    expect(await failed(rest as Environment)).toEqual(["oracle"]);
    const optedOut = { ...rest, validation: { noOracle: "a judge grades it" } };
    const row = await rowOf(optedOut as Environment, "oracle");
    expect(row).toMatchObject({
      status: "SKIP",
      detail: "no oracle: a judge grades it"
    });
  });

  it("a reset that prints the hidden store fails no leakage through the canary", async () => {
    // Prints the hidden store into the first observation, a debugging aid left in.
    const dumps = {
      ...sound,
      reset: (args: Parameters<typeof sound.reset>[0]) =>
        `${sound.reset(args)}\nhidden: ${JSON.stringify(args.ctx.hidden.keys().map((k) => args.ctx.hidden.get(k)))}`
    } as unknown as Environment;
    expect((await rowOf(dumps, "no leakage"))?.detail).toBe(
      "the hidden store's canary appears in observations at reset of task 0"
    );
  });
});

const EXAMPLES: [string, Environment][] = [
  ["examples/counter/index.ts", counter],
  ["examples/story/index.ts", story],
  ["examples/calculator/index.ts", calculator],
  ["examples/catalog/index.ts", catalog],
  // Local sessions have no loader: its oracle's answer passes without running the code.
  ["examples/code-analyst/index.ts", codeAnalyst],
  ["examples/own-worker/guess.ts", guess]
];

describe("every example environment passes validate", () => {
  for (const [, env] of EXAMPLES)
    it(env.name, async () => {
      const report = await validateEnvironment(env);
      expect(report.rows.filter((r) => r.status === "FAIL")).toEqual([]);
      expect(report.ok).toBe(true);
    });
});

const validateCli = (args: string[]) =>
  run(
    join("node_modules", ".bin", "tsx"),
    ["src/cli/main.ts", "validate", ...args],
    {
      env: { ...process.env, NO_COLOR: "1" }
    }
  );

describe("roost-edge validate", () => {
  it("reads a module, --env and --tasks, and refuses anything else", () => {
    expect(
      parseArgs(["validate", "env.ts", "--env", "calc", "--tasks=3"], {})
    ).toEqual({
      command: "validate",
      module: "env.ts",
      env: "calc",
      tasks: 3
    });
    for (const bad of [
      [],
      ["a.ts", "b.ts"],
      ["a.ts", "--tasks", "0"],
      ["a.ts", "--url", "x"],
      ["a.ts", "--env"]
    ])
      expect(() => parseArgs(["validate", ...bad], {})).toThrow(UsageError);
  });

  it("exits 0 over every example module and prints each check", async () => {
    for (const [module, env] of EXAMPLES) {
      const { stdout } = await validateCli([module]);
      expect(stdout.split("\n")[0]).toBe(env.name);
      expect(stdout).toMatch(/ determinism +PASS/);
      expect(stdout).toMatch(/ contract: resets +PASS/);
      expect(stdout.trimEnd().endsWith("passed")).toBe(true);
    }
  }, 120_000);

  it("exits 1 with the failing check on a broken environment, 2 for a module without it", async () => {
    const module = "test/node/helpers/validate/broken.ts";
    const failure = await validateCli([module, "--env", "empty-scores"]).catch(
      (e) => e
    );
    expect(failure.code).toBe(1);
    expect(failure.stdout).toMatch(/ floor: empty answers +FAIL 1\.000/);
    expect(failure.stdout).toMatch(/1 check failed/);
    const missing = await validateCli([module, "--env", "nope"]).catch(
      (e) => e
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/exports no environment named "nope"/);
    const late = await validateCli(["test/fixtures/late-leak.ts"]).catch(
      (e) => e
    );
    expect(late.code).toBe(1);
    expect(late.stdout).toMatch(
      / no leakage +FAIL +hidden key "word" \("crane"\) appears in observations at step 6 of task 0 \(tool guess\), played by guess's examples\n/
    );
  }, 60_000);
});
