// The README's rollout command (docs/07-training.md has the CLI), run as a user runs it, against wrangler dev.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { rolloutCli } from "./helpers/cli";

const dir = mkdtempSync(join(tmpdir(), "roost-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run rollout", () => {
  it("writes the trajectories and ends with a summary of the run", async () => {
    const out = join(dir, "trajectories.jsonl");
    const { stderr } = await rolloutCli(inject("baseUrl"), [
      "--env",
      "calculator",
      "--episodes",
      "6",
      "--concurrency",
      "3",
      "--policy",
      "examples/scripted-policy/index.ts",
      "--out",
      out
    ]);
    const lines = readFileSync(out, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).episode)).toEqual([0, 1, 2, 3, 4, 5]);
    const summary = stderr.slice(stderr.indexOf("Finished"));
    expect(summary).toMatch(/^Finished 6 episodes in \d+\.\d s\.\n/);
    expect(summary).toContain("  failed        0\n");
    expect(summary).toContain(
      "  mean return   1.000 ± 0.000  (6 without error)"
    );
    expect(summary).toContain("  success rate  100.0 %  (6 of 6");
    expect(summary).toMatch(/ {2}steps {9}12 {2}\(\d+\.\d steps\/s\)/);
    expect(summary).toContain(`  trajectories  ${out}`);
    // Log lines (stderr is not a terminal here) never claim a rate or a mean
    // before the first episode finished.
    for (const line of stderr
      .split("\n")
      .filter((l) => l.includes("/6 episodes")))
      if (line.includes(" 0/6 episodes"))
        expect(line).toContain("- steps/s  mean return -");
  }, 60_000);

  it("writes each episode's token sequences with --model-gateway", async () => {
    const out = join(dir, "tokens.jsonl");
    await rolloutCli(
      inject("baseUrl"),
      [
        "--env",
        "counter",
        "--episodes",
        "1",
        "--max-steps",
        "2",
        "--policy",
        "openai",
        "--model",
        "vllm-stub",
        "--model-gateway",
        "--out",
        out
      ],
      // Never called: the server's upstream answers through the gateway.
      { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }
    );
    const [line] = readFileSync(out, "utf8").trim().split("\n");
    const trajectory = JSON.parse(line!) as {
      error: unknown;
      token_sequences: { calls: number[]; loss_mask: number[] }[];
    };
    expect(trajectory.error).toBeNull();
    expect(trajectory.token_sequences.map((s) => s.calls)).toEqual([[1, 2]]);
    expect(trajectory.token_sequences[0]!.loss_mask).toContain(1);
  }, 60_000);

  it("writes each branch point's returns and value with --branches", async () => {
    const out = join(dir, "tree.jsonl");
    await rolloutCli(inject("baseUrl"), [
      "--env",
      "branchy",
      "--episodes",
      "1",
      "--max-steps",
      "3",
      "--seed",
      "3",
      "--branches",
      "2",
      "--out",
      out
    ]);
    const [line] = readFileSync(out, "utf8").trim().split("\n");
    const trajectory = JSON.parse(line!) as {
      error: unknown;
      branches: { step: number; returns: number[] }[];
      step_advantages: unknown[];
    };
    expect(trajectory.error).toBeNull();
    expect(trajectory.branches.map((b) => b.step)).toEqual([1, 2]);
    expect(trajectory.branches.every((b) => b.returns.length === 2)).toBe(true);
    expect(trajectory.step_advantages).toHaveLength(3);
  }, 60_000);

  it("refuses a policy it cannot load with exit code 2", async () => {
    const failure = await rolloutCli(inject("baseUrl"), [
      "--env",
      "counter",
      "--policy",
      "./no-such-policy.mjs"
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(
      /--policy "\.\/no-such-policy\.mjs" is neither "random" nor a module that loads/
    );
  }, 60_000);

  it("takes tasks from a split with --split: a generated split plays seed i in episode i", async () => {
    const out = join(dir, "practice.jsonl");
    await rolloutCli(inject("baseUrl"), [
      "--env",
      "calculator",
      "--episodes",
      "3",
      "--split",
      "practice",
      "--policy",
      "examples/scripted-policy/index.ts",
      "--out",
      out
    ]);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.task_index, l.split, l.return])).toEqual([
      [0, "practice", 1],
      [1, "practice", 1],
      [2, "practice", 1]
    ]);
    const evalOut = join(dir, "eval.jsonl");
    await rolloutCli(inject("baseUrl"), [
      "--env",
      "calculator",
      "--episodes",
      "1",
      "--split",
      "eval",
      "--policy",
      "examples/scripted-policy/index.ts",
      "--out",
      evalOut
    ]);
    const [evalLine] = readFileSync(evalOut, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(evalLine).toMatchObject({ task_index: 0, split: "eval" });
    // Episode 0 of each split is a different problem.
    expect(evalLine.messages[0].content).not.toBe(lines[0].messages[0].content);
  }, 60_000);

  it("says how to start a server when none answers", async () => {
    // Port 9 (discard) has no server on a test machine.
    const failure = await rolloutCli("http://127.0.0.1:9", [
      "--env",
      "counter"
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain(
      "No Roost server answered at http://127.0.0.1:9. Start one (npm start"
    );
  }, 60_000);

  it("refuses an unknown environment, naming the server's", async () => {
    const failure = await rolloutCli(inject("baseUrl"), [
      "--env",
      "nope",
      "--episodes",
      "1"
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toBe(
      'roost-edge: not_found: The server has no environment "nope". It has: counter, story, tictactoe, tictactoe-bot, support, calculator, catalog, code-analyst, mcp-everything, nap, ledger, fragile, graded, frames-answer, forgets-on-fork, pupil, bulk, rescored, branchy, late-leak.\n'
    );
  }, 60_000);

  it("refuses an unknown split before running anything", async () => {
    const failure = await rolloutCli(inject("baseUrl"), [
      "--env",
      "calculator",
      "--split",
      "holdout"
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain(
      'no split "holdout"; its splits: train, eval, practice'
    );
  }, 60_000);
});
