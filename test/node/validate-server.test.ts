// `validate --url` against the real wrangler dev of global-setup.ts: every
// example environment passes on the server's sessions; each environment of
// test/e2e-worker/unfaithful.ts passes locally and fails on the server
// exactly the check for its defect; without a module the listing's
// validation summary decides the oracle row.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Environment } from "roost-edge/core";
import { describe, expect, inject, it } from "vitest";
import { calculator } from "../../examples/calculator/index";
import { catalog } from "../../examples/catalog/index";
import { codeAnalyst } from "../../examples/code-analyst/index";
import { counter } from "../../examples/counter/index";
import { story } from "../../examples/story/index";
import { parseArgs, UsageError } from "../../src/cli/args";
import { validateEnvironment, validateServer } from "../../src/validate/index";
import { forgetsOnFork, framesAnswer } from "../e2e-worker/unfaithful";
import { lateLeak } from "../fixtures/late-leak";

const url = inject("baseUrl");
const run = promisify(execFile);

const failed = (report: { rows: { check: string; status: string }[] }) =>
  report.rows.filter((r) => r.status === "FAIL").map((r) => r.check);

const rowOf = (
  report: { rows: { check: string; status: string; detail: string }[] },
  check: string
) => report.rows.find((r) => r.check === check);

/** One environment on the server, its module's code (the oracle) given. */
const one = async (env: Environment) => {
  const [report] = await validateServer({ url, environments: [env] });
  return report!;
};

describe("validate --url: every example environment passes on the server", () => {
  // code-analyst's oracle sends its code to the server's sandbox.
  for (const env of [counter, story, calculator, catalog, codeAnalyst])
    it(env.name, async () => {
      const report = await one(env);
      expect(report.server).toBe(url);
      expect(report.rows.filter((r) => r.status === "FAIL")).toEqual([]);
      // The server-only checks ran, not skipped.
      expect(rowOf(report, "determinism: fork")?.status).toBe("PASS");
      expect(rowOf(report, "no leakage")?.detail).toMatch(
        /OpenEnv frames and MCP listings/
      );
      expect(rowOf(report, "contract: step after done")).toMatchObject({
        status: "PASS",
        detail: "refused"
      });
      expect(report.ok).toBe(true);
    }, 120_000);
});

describe("what only a server shows is caught by the check for it", () => {
  it("an environment whose viewer frame shows the hidden answer passes locally and fails no leakage on the server, naming /frame", async () => {
    expect(failed(await validateEnvironment(framesAnswer))).toEqual([]);
    const report = await one(framesAnswer);
    expect(failed(report)).toEqual(["no leakage"]);
    expect(rowOf(report, "no leakage")?.detail).toBe(
      'hidden key "word" ("apple") appears in /frame after step 1 of task 0, played by the random policy'
    );
  }, 120_000);

  it("a game that shows its answer only when the guesses run out fails no leakage on the server too, naming key, task, tool and step", async () => {
    const report = await one(lateLeak);
    expect(failed(report)).toEqual(["no leakage"]);
    expect(rowOf(report, "no leakage")?.detail).toBe(
      'hidden key "word" ("crane") appears in observations at step 6 of task 0 (tool guess), played by guess\'s examples'
    );
  }, 120_000);

  it("an environment that keeps its count in module memory passes locally and fails determinism: fork on the server", async () => {
    const local = await validateEnvironment(forgetsOnFork);
    expect(failed(local)).toEqual([]);
    expect(rowOf(local, "determinism: fork")).toMatchObject({
      status: "SKIP",
      detail: "local sessions do not fork: validate --url <server> runs it"
    });
    const report = await one(forgetsOnFork);
    expect(failed(report)).toEqual(["determinism: fork"]);
    expect(rowOf(report, "determinism: fork")?.detail).toBe(
      "a copy of task 0 forked after step 2 differs from its source in step 3 (tool answer)"
    );
  }, 120_000);
});

describe("validate --url without a module", () => {
  it("lists each environment's validation summary", async () => {
    const body = (await (await fetch(`${url}/v1/environments`)).json()) as {
      environments: { name: string; validation?: unknown }[];
    };
    const of = (name: string) =>
      body.environments.find((e) => e.name === name)?.validation;
    expect(of("counter")).toEqual({ oracle: true, max_return: 1 });
    expect(of("catalog")).toEqual({
      oracle: false,
      no_oracle: catalog.validation?.noOracle,
      max_return: 1
    });
    expect(of("graded")).toEqual({ oracle: false, max_return: 1 });
  });

  it("fails an oracle the module holds, skips an opted-out one, fails a missing one", async () => {
    const reports = await validateServer({
      url,
      names: ["counter", "catalog", "graded"],
      tasks: 1
    });
    expect(reports.map((r) => rowOf(r, "oracle"))).toEqual([
      {
        check: "oracle",
        status: "FAIL",
        detail:
          "the oracle is defined in the environment's module: pass the module (validate --url <server> <module>) to run it"
      },
      {
        check: "oracle",
        status: "SKIP",
        detail: `no oracle: ${catalog.validation?.noOracle}`
      },
      expect.objectContaining({
        status: "FAIL",
        detail: expect.stringMatching(
          /^no oracle: give the environment validation\.oracle/
        )
      })
    ]);
    // Only the oracle rows: the other checks pass on the server's sessions.
    expect(reports.map(failed)).toEqual([["oracle"], [], ["oracle"]]);
  }, 120_000);
});

const validateCli = (args: string[], env: Record<string, string> = {}) =>
  run(
    join("node_modules", ".bin", "tsx"),
    ["src/cli/main.ts", "validate", ...args],
    { env: { ...process.env, NO_COLOR: "1", ...env } }
  );

describe("roost-edge validate --url", () => {
  it("reads --url, an optional module, --api-key or $ROOST_API_KEY, and refuses the rest", () => {
    expect(
      parseArgs(["validate", "--url", "http://h:1/", "--env=calc"], {
        ROOST_API_KEY: "k1"
      })
    ).toEqual({
      command: "validate",
      url: "http://h:1",
      apiKey: "k1",
      env: "calc"
    });
    expect(
      parseArgs(
        ["validate", "m.ts", "--url=https://h", "--api-key", "k2", "--tasks=2"],
        { ROOST_API_KEY: "k1" }
      )
    ).toEqual({
      command: "validate",
      module: "m.ts",
      url: "https://h",
      apiKey: "k2",
      tasks: 2
    });
    // Local validation sends no key, so it reads none.
    expect(parseArgs(["validate", "m.ts"], { ROOST_API_KEY: "k1" })).toEqual({
      command: "validate",
      module: "m.ts"
    });
    for (const bad of [
      [],
      ["--url"],
      ["--url", "h:1"],
      ["--url", "ftp://h"],
      ["m.ts", "--api-key", "k"],
      ["--url", "http://h", "--url", "http://i"],
      ["--url", "http://h", "--seed", "1"]
    ])
      expect(() => parseArgs(["validate", ...bad], {})).toThrow(UsageError);
  });

  it("prints the server's report and exits 1 on the failing check, 2 for an environment the server lacks", async () => {
    const failure = await validateCli([
      "--url",
      url,
      "test/e2e-worker/unfaithful.ts",
      "--env",
      "frames-answer",
      "--tasks",
      "1"
    ]).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stdout.split("\n")[0]).toBe(`frames-answer on ${url}`);
    expect(failure.stdout).toMatch(
      / no leakage +FAIL +hidden key "word" \("lemon"\) appears in \/frame after step 1 of task 5, played by the random policy\n/
    );
    expect(failure.stdout).toMatch(/ oracle +PASS 1\.000/);
    expect(failure.stdout).toMatch(/1 check failed/);
    const missing = await validateCli([
      "--url",
      url,
      "test/node/helpers/validate/broken.ts",
      "--env",
      "sound"
    ]).catch((e) => e);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has no environment named "sound"/);
  }, 120_000);

  it("passes code-analyst, its oracle's code sent to the server's sandbox", async () => {
    const { stdout } = await validateCli([
      "--url",
      url,
      "--env",
      "code-analyst",
      "examples/code-analyst/index.ts",
      "--tasks",
      "2"
    ]);
    expect(stdout.split("\n")[0]).toBe(`code-analyst on ${url}`);
    expect(stdout).toMatch(/ oracle +PASS 1\.000/);
    expect(stdout).toMatch(/ determinism: fork +PASS/);
    expect(stdout).not.toMatch(/FAIL/);
  }, 120_000);
});
