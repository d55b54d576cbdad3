// roost-edge rollout's command line: its options and their environment
// fallbacks, help and usage errors, the policy a module exports, and the
// progress and summary it prints.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs, UsageError } from "../../src/cli/args";
import { loadPolicy } from "../../src/cli/policies";
import {
  formatProgress,
  formatSummary,
  ProgressReporter
} from "../../src/cli/progress";

describe("roost-edge command line", () => {
  it("reads a rollout with defaults and environment fallbacks", () => {
    expect(
      parseArgs(
        [
          "rollout",
          "--env",
          "calculator",
          "--episodes=200",
          "--concurrency",
          "16",
          "--policy",
          "random",
          "--out",
          "t.jsonl"
        ],
        { ROOST_API_KEY: "k" }
      )
    ).toEqual({
      command: "rollout",
      url: "http://127.0.0.1:8787",
      env: "calculator",
      episodes: 200,
      concurrency: 16,
      policy: "random",
      out: "t.jsonl",
      apiKey: "k"
    });
  });

  it("takes --help after a command as help, not as an unknown option", () => {
    expect(parseArgs(["rollout", "--help"], {})).toEqual({ command: "help" });
    expect(parseArgs(["environments", "-h"], {})).toEqual({ command: "help" });
  });

  it("rejects what it cannot use with a UsageError", () => {
    expect(() => parseArgs(["rollout"], {})).toThrow(UsageError);
    expect(() =>
      parseArgs(["rollout", "--env", "x", "--episodes", "0"], {})
    ).toThrow(/episodes/);
    expect(() =>
      parseArgs(["rollout", "--env", "x", "--bogus", "1"], {})
    ).toThrow(/--bogus/);
    for (const size of ["0", "66", "2.5"])
      expect(() =>
        parseArgs(["rollout", "--env", "x", "--group-size", size], {})
      ).toThrow(/group-size/);
    expect(
      parseArgs(["rollout", "--env", "x", "--group-size", "8"], {})
    ).toMatchObject({ groupSize: 8 });
  });

  it("runs random by default, or the policy a module exports", async () => {
    expect(parseArgs(["rollout", "--env", "x"], {})).toMatchObject({
      policy: "random"
    });
    const dir = mkdtempSync(join(tmpdir(), "roost-policy-"));
    try {
      const named = join(dir, "named.mjs");
      writeFileSync(
        named,
        'export const policy = () => ({ tool_calls: [{ id: "c", function: { name: "incr", arguments: {} } }] });\n'
      );
      const fallback = join(dir, "default.mjs");
      writeFileSync(fallback, "export default () => ({ tool_calls: [] });\n");
      const empty = join(dir, "empty.mjs");
      writeFileSync(empty, "export const notAPolicy = 1;\n");
      expect(await (await loadPolicy(named, {}))([], [], [])).toMatchObject({
        tool_calls: [{ function: { name: "incr" } }]
      });
      expect(await (await loadPolicy(fallback, {}))([], [], [])).toEqual({
        tool_calls: []
      });
      await expect(loadPolicy(empty, {})).rejects.toThrow(/exports no policy/);
      await expect(loadPolicy(join(dir, "none.mjs"), {})).rejects.toThrow(
        UsageError
      );
      expect(typeof (await loadPolicy("random", { seed: 1 }))).toBe("function");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("redraws one line on a terminal and prints plain lines, throttled, elsewhere", () => {
    const progress = {
      total: 4,
      done: 2,
      errors: 0,
      running: 2,
      steps: 10,
      elapsed_ms: 1000,
      steps_per_second: 10,
      mean_return: 1
    };
    expect(formatProgress(progress)).toBe(
      `[${"█".repeat(12)}${"░".repeat(12)}] 2/4 episodes  10.0 steps/s  mean return 1.000  errors 0`
    );
    // No rate and no mean before the first episode finished.
    expect(
      formatProgress({ ...progress, done: 0, mean_return: null })
    ).toContain(" 0/4 episodes  - steps/s  mean return -  errors 0");
    let now = 0;
    const tty: string[] = [];
    const t = new ProgressReporter(
      { write: (s) => tty.push(s), isTTY: true },
      { now: () => now }
    );
    t.update(progress);
    t.update(progress);
    now = 100;
    t.update(progress);
    t.finish(progress);
    expect(tty.map((s) => s.slice(0, 2))).toEqual(["\r[", "\r[", "\r[", "\n"]);
    const log: string[] = [];
    const l = new ProgressReporter(
      { write: (s) => log.push(s), isTTY: false },
      { now: () => now }
    );
    l.update(progress);
    now = 4000;
    l.update(progress);
    l.finish(progress);
    expect(log).toHaveLength(2);
    expect(log.every((s) => s.endsWith("\n") && !s.includes("\r"))).toBe(true);
  });

  it("ends a run with a summary of what it measured", () => {
    const summary = {
      total: 200,
      done: 200,
      errors: 3,
      running: 0,
      steps: 400,
      elapsed_ms: 12_300,
      steps_per_second: 32.52,
      mean_return: 0.95,
      return_std: 0.218,
      successes: 190,
      undeleted: 0,
      error_codes: { timeout: 1, policy_error: 2 }
    };
    expect(formatSummary(summary, "trajectories.jsonl").split("\n")).toEqual([
      "Finished 200 episodes in 12.3 s.",
      "  failed        3  (policy_error ×2, timeout ×1)",
      "  mean return   0.950 ± 0.218  (197 without error)",
      "  success rate  95.0 %  (190 of 200 ended by the environment with a positive return)",
      "  steps         400  (32.5 steps/s)",
      "  trajectories  trajectories.jsonl"
    ]);
    const stopped = formatSummary(
      {
        ...summary,
        done: 0,
        errors: 0,
        steps: 0,
        elapsed_ms: 0,
        mean_return: null,
        return_std: null,
        successes: 0,
        undeleted: 2,
        error_codes: {}
      },
      "-"
    );
    expect(stopped.split("\n")).toEqual([
      "Stopped after 0 of 200 episodes in 0.0 s.",
      "  failed        0",
      "  mean return   -",
      "  success rate  -",
      "  steps         0  (- steps/s)",
      "  trajectories  stdout",
      "  undeleted     2 session(s); they expire after their idle TTL"
    ]);
    const group = (group_id: number, return_std: number) => ({
      group_id,
      episodes: 4,
      errors: 0,
      mean_return: 0.5,
      return_std,
      flat: return_std === 0,
      successes: 2
    });
    const grouped = formatSummary(
      {
        ...summary,
        groups: [group(0, 0.5), group(1, 0), group(2, 0.25)],
        signal_share: 2 / 3
      },
      "-"
    );
    expect(grouped.split("\n").slice(-6)).toEqual([
      "  groups        3 of 4 episodes  (mean within-group return std 0.250; 1 with no spread: advantages all 0)",
      "  with signal   66.7 %  (groups whose returns were not all equal)",
      "    group 0   0.500 ± 0.500  2/4 succeeded",
      "    group 1   0.500 ± 0.000  2/4 succeeded  (no spread)",
      "    group 2   0.500 ± 0.250  2/4 succeeded",
      "  trajectories  stdout"
    ]);
  });
});
