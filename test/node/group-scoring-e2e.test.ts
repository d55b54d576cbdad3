// Group scoring over real fork groups against wrangler dev: GRPO advantages,
// a group with no spread counted, and the group judge (the fake OpenAI
// server) — its scores, ranks, retry, failure, and its key never written.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { rollout, type Trajectory } from "../../src/client/index";
import {
  type CannedResponse,
  fakeOpenAIRequests,
  scriptFakeOpenAI
} from "./fake-openai";
import { rolloutCli } from "./helpers/cli";
import { unevenPolicy } from "./helpers/uneven-policy";

const fake = inject("fakeOpenAIUrl");
const KEY = "sk-judge-do-not-write-7f3a9c";
const dir = mkdtempSync(join(tmpdir(), "roost-groups-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const judgeReply = (scores: number[]): CannedResponse => ({
  body: {
    choices: [
      {
        message: {
          role: "assistant",
          content: `\`\`\`json\n${JSON.stringify({
            scores: scores.map((score, i) => ({
              trajectory_id: String(i + 1),
              explanation: `attempt ${i + 1}`,
              score
            }))
          })}\n\`\`\``
        }
      }
    ]
  }
});

const byGroup = (trajectories: Trajectory[], group: number) =>
  trajectories
    .filter((t) => t.group_id === group)
    .sort((a, b) => a.group_index! - b.group_index!);

describe("group scoring over fork groups", () => {
  it("gives each episode its GRPO advantage, counts the flat group, and writes the judge's scores and ranks", async () => {
    // Group 0: a tie; group 1: a 503 first (retried), then distinct scores.
    await scriptFakeOpenAI(fake, [
      judgeReply([0.5, 0.5]),
      { status: 503, body: { error: { message: "busy" } } },
      judgeReply([0.2, 0.9])
    ]);
    const { trajectories, summary } = await rollout({
      baseUrl: inject("baseUrl"),
      environment: "calculator",
      policy: unevenPolicy(),
      episodes: 4,
      groupSize: 2,
      // One group at a time, so group 0 plays the question seen first.
      concurrency: 2,
      groupJudge: { baseUrl: `${fake}/v1`, model: "judge-model", apiKey: KEY }
    });
    expect(trajectories.every((t) => t.error === null)).toBe(true);

    const [a, b] = byGroup(trajectories, 0);
    expect([a!.return, b!.return]).toEqual([1, 1]);
    expect([a!.advantage, b!.advantage]).toEqual([0, 0]);
    expect([a!.group_mean, a!.group_std]).toEqual([1, 0]);

    const group1 = byGroup(trajectories, 1);
    const returns = group1.map((t) => t.return).sort();
    expect(returns).toEqual([0, 1]);
    for (const t of group1) {
      expect(t.group_mean).toBe(0.5);
      expect(t.group_std).toBe(0.5);
      expect(t.advantage).toBeCloseTo(t.return === 1 ? 1 : -1, 5);
    }
    expect(summary.flat_groups).toBe(1);
    expect(summary.groups?.map((g) => g.flat)).toEqual([true, false]);
    // The default sampler keeps group g on index g; one group of two taught.
    expect(byGroup(trajectories, 1)[0]!.task_index).toBe(1);
    expect(summary.signal_share).toBe(0.5);
    expect(summary.judge_errors).toBe(0);

    // Components per step, aligned with the rewards.
    for (const t of trajectories) {
      expect(t.reward_components).toHaveLength(t.rewards.length);
      expect(t.reward_components.at(-1)).toEqual(
        t.return === 1 ? { exact: 1, format: 1 } : { exact: 0, format: 0 }
      );
    }

    // The judge's scores in the order the group's members were shown.
    expect([a, b].map((t) => [t!.group_score, t!.rank])).toEqual([
      [0.5, 1],
      [0.5, 1]
    ]);
    expect(group1.map((t) => [t.group_score, t.rank])).toEqual([
      [0.2, 2],
      [0.9, 1]
    ]);
    expect(group1[1]!.group_judge_explanation).toBe("attempt 2");
    expect(group1.every((t) => t.group_judge_error === null)).toBe(true);

    const requests = await fakeOpenAIRequests(fake);
    expect(requests).toHaveLength(3);
    expect(
      requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)
    ).toBe(true);
    // The prompt shows the question once, then each attempt.
    const prompt = (requests[2]!.body as { messages: { content: string }[] })
      .messages[1]!.content;
    const question = (group1[0]!.messages[0]!.content as string).split(
      "\n"
    )[0]!;
    expect(prompt.split(question)).toHaveLength(2);
    expect(prompt).toContain('<trajectory id="2">');
    expect(prompt).toContain("→ submit_answer(");
    expect(JSON.stringify(trajectories)).not.toContain(KEY);
  }, 60_000);

  it("records a judge that fails as group_judge_error and keeps the rollout; the CLI reports it and never writes the key", async () => {
    // Group 0: refused (a 400 is not retried); group 1: an answer that is not JSON.
    await scriptFakeOpenAI(fake, [
      { status: 400, body: { error: { message: "bad model" } } },
      { body: { choices: [{ message: { content: "Both look fine to me." } }] } }
    ]);
    const out = join(dir, "judged.jsonl");
    const { stdout, stderr } = await rolloutCli(
      inject("baseUrl"),
      [
        "--env",
        "calculator",
        "--episodes",
        "4",
        "--group-size",
        "2",
        "--concurrency",
        "2",
        "--policy",
        "test/node/helpers/uneven-policy.ts",
        "--group-judge",
        "--judge-model",
        "judge-model",
        "--judge-base-url",
        `${fake}/v1`,
        "--out",
        out
      ],
      { ROOST_JUDGE_API_KEY: KEY }
    );
    const text = readFileSync(out, "utf8");
    const lines = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Trajectory);
    expect(lines).toHaveLength(4);
    expect(lines.every((t) => t.error === null)).toBe(true);
    expect(lines.map((t) => t.group_judge_error)).toEqual([
      expect.stringMatching(/refused: HTTP 400/),
      expect.stringMatching(/refused: HTTP 400/),
      expect.stringMatching(/no JSON object: Both look fine/),
      expect.stringMatching(/no JSON object: Both look fine/)
    ]);
    expect(lines.every((t) => t.group_score === null && t.rank === null)).toBe(
      true
    );
    // The advantages do not need the judge.
    expect(lines.map((t) => t.advantage === null)).toEqual([
      false,
      false,
      false,
      false
    ]);
    expect(stderr).toContain("1 with no spread: advantages all 0");
    expect(stderr).toContain("  group judge   0 of 2 groups scored; 2 not");
    expect(`${text}${stdout}${stderr}`).not.toContain(KEY);
    const requests = await fakeOpenAIRequests(fake);
    expect(requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`
    ]);
  }, 60_000);
});

describe("the command line of group scoring", () => {
  const rollout = ["rollout", "--env", "calculator", "--group-size", "4"];
  it("reads the judge's model and endpoint from flags or the environment, its key only from the environment", () => {
    expect(
      parseArgs([...rollout, "--group-judge", "--judge-model", "m"], {
        ROOST_JUDGE_API_KEY: KEY,
        ROOST_JUDGE_BASE_URL: "http://127.0.0.1:9/v1"
      })
    ).toMatchObject({
      judge: { model: "m", baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY }
    });
    expect(
      parseArgs([...rollout, "--group-judge"], { ROOST_JUDGE_MODEL: "j" })
    ).toMatchObject({
      judge: { model: "j", baseUrl: "https://api.openai.com/v1" }
    });
    expect(() =>
      parseArgs([...rollout, "--group-judge", "--judge-api-key", KEY], {
        ROOST_JUDGE_MODEL: "j"
      })
    ).toThrow(/Unknown option --judge-api-key/);
  });

  it("refuses a judge without groups, without a model, or judge flags without --group-judge", () => {
    expect(() =>
      parseArgs(
        ["rollout", "--env", "x", "--group-judge", "--judge-model", "m"],
        {}
      )
    ).toThrow(/needs --group-size of 2 or more/);
    expect(() => parseArgs([...rollout, "--group-judge"], {})).toThrow(
      /needs --judge-model/
    );
    expect(() => parseArgs([...rollout, "--judge-model", "m"], {})).toThrow(
      /--judge-model needs --group-judge/
    );
    expect(() => parseArgs([...rollout, "--group-judge=yes"], {})).toThrow(
      /takes no value/
    );
  });

  it("parses rescore: --rubric and --in required, --out stdout by default", () => {
    expect(
      parseArgs(["rescore", "--rubric", "r.ts", "--in", "t.jsonl"], {})
    ).toEqual({ command: "rescore", rubric: "r.ts", in: "t.jsonl", out: "-" });
    expect(() => parseArgs(["rescore", "--in", "t.jsonl"], {})).toThrow(
      /needs --rubric/
    );
    expect(() => parseArgs(["rescore", "--rubric", "r.ts"], {})).toThrow(
      /needs --in/
    );
    expect(() =>
      parseArgs(["rescore", "--rubric", "r.ts", "--in", "t", "--env", "x"], {})
    ).toThrow(/Unknown option --env/);
  });
});
