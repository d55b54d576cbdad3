// Multi-agent rollouts through the CLI, as a user runs them, against
// wrangler dev: self-play of tic-tac-toe (one policy for both sides, each
// deciding on its own view), a policy per agent, and the support desk
// against the environment's customer (the deployment's model, here the
// fake OpenAI server, scripted). Each trajectory carries each agent's part.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Trajectory } from "../../src/client/trajectory";
import { scriptFakeOpenAI, textCompletion } from "./fake-openai";
import { rolloutCli } from "./helpers/cli";

const dir = mkdtempSync(join(tmpdir(), "roost-cli-agents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const POLICY = "examples/scripted-policy/index.ts";

const rollout = async (
  name: string,
  args: string[],
  env: Record<string, string> = {}
) => {
  const out = join(dir, `${name}.jsonl`);
  const run = await rolloutCli(
    inject("baseUrl"),
    [...args, "--episodes", "1", "--out", out],
    env
  );
  const [line] = readFileSync(out, "utf8").trim().split("\n");
  return { run, trajectory: JSON.parse(line!) as Trajectory };
};

describe("multi-agent rollouts through the CLI", () => {
  it("self-play: both sides of tic-tac-toe, each its own part and its own view", async () => {
    const { trajectory: t } = await rollout("self-play", [
      "--env",
      "tictactoe",
      "--policy",
      POLICY
    ]);
    expect(t.error).toBeNull();
    expect(t).toMatchObject({ done: true, return: 1 });
    const { x, o } = t.agents!;
    // First free cell each time: x 1, 3, 5, 7 wins on the diagonal.
    expect(x!.actions).toHaveLength(4);
    expect(o!.actions).toHaveLength(3);
    expect(x!.rewards).toEqual([0, 0, 0, 1]);
    // o's last move is the one x's win answered.
    expect(o!.rewards).toEqual([0, 0, -1]);
    expect([x!.return, o!.return]).toEqual([1, -1]);
    // Each side decided on its own view, and was told the end.
    for (const [agent, part] of Object.entries(t.agents!)) {
      expect(part.observations).toHaveLength(part.actions.length + 1);
      for (const m of part.observations.flat())
        expect(m.agent ?? agent).toBe(agent);
    }
    expect(JSON.stringify(o!.observations.at(-1))).toContain("You lost.");
    expect(JSON.stringify(o!.observations[0])).toContain("x marked 1");
  }, 60_000);

  it("a policy per agent with --agent-policies, and refuses an agent no client plays", async () => {
    const { trajectory: t } = await rollout("per-agent", [
      "--env",
      "tictactoe",
      "--agent-policies",
      `o=${POLICY}`,
      "--policy",
      POLICY
    ]);
    expect(t).toMatchObject({ done: true, return: 1 });
    const refused = await rolloutCli(inject("baseUrl"), [
      "--env",
      "tictactoe-bot",
      "--agent-policies",
      "o=random",
      "--episodes",
      "1"
    ]).catch((error: { stderr: string; code: number }) => error);
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toContain(
      'tictactoe-bot has no agent "o" that a client plays; its agents are x.'
    );
  }, 60_000);

  it("the support desk against the customer the deployment's model plays", async () => {
    await scriptFakeOpenAI(inject("fakeOpenAIUrl"), [
      textCompletion("It is order A-101, the teapot."),
      textCompletion("Thank you! [done]")
    ]);
    const { trajectory: t } = await rollout("support", [
      "--env",
      "support",
      "--policy",
      POLICY
    ]);
    expect(t.error).toBeNull();
    expect(t).toMatchObject({ done: true, return: 1 });
    const { agent, user } = t.agents!;
    // Ask, refund, say: the customer answered inside the first and last.
    expect(agent!.actions).toHaveLength(3);
    expect(agent!.rewards).toEqual([0, 0, 1]);
    expect(JSON.stringify(agent!.observations[1])).toContain(
      "The customer: It is order A-101"
    );
    // The customer is the environment's: its reward, no actions of a client.
    expect(user).toMatchObject({ actions: [], return: 1 });
  }, 60_000);

  it("gives each agent the token sequences of its own decisions with --model-gateway", async () => {
    const { trajectory: t } = await rollout(
      "tokens",
      [
        "--env",
        "tictactoe",
        "--max-steps",
        "3",
        "--policy",
        "openai",
        "--model",
        "vllm-stub",
        "--model-gateway"
      ],
      // Never called: the server's upstream answers through the gateway.
      { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }
    );
    expect(t.error).toBeNull();
    // The stub calls a tool x lacks, so the turn stays x's: all three
    // decisions, and every call, are x's; o made none.
    const { x, o } = t.agents!;
    expect(x!.steps).toEqual([1, 2, 3]);
    expect(x!.token_sequences!.flatMap((q) => q.calls)).toEqual(
      t.token_sequences!.flatMap((q) => q.calls)
    );
    expect(x!.token_sequences![0]!.loss_mask).toContain(1);
    expect(o!.actions).toEqual([]);
    expect(o!.token_sequences).toBeUndefined();
  }, 60_000);

  it("scores each agent in its group against the other copies' same agent", async () => {
    const out = join(dir, "groups.jsonl");
    await rolloutCli(inject("baseUrl"), [
      "--env",
      "tictactoe",
      "--episodes",
      "16",
      "--group-size",
      "16",
      "--policy",
      "random",
      "--seed",
      "7",
      "--out",
      out
    ]);
    const group = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Trajectory);
    expect(group.every((t) => t.error === null)).toBe(true);
    for (const agent of ["x", "o"]) {
      const parts = group.map((t) => t.agents![agent]!);
      const mean = parts.reduce((n, p) => n + p.return, 0) / parts.length;
      for (const p of parts) {
        expect(typeof p.advantage).toBe("number");
        // Above the group's mean is a positive advantage, below negative.
        expect(Math.sign(p.advantage!)).toBe(
          Math.abs(p.return - mean) < 1e-9 ? 0 : Math.sign(p.return - mean)
        );
      }
      // Sixteen random games went differently (all alike about once in
      // 5 000 runs): there is something to score.
      expect(new Set(parts.map((p) => p.return)).size).toBeGreaterThan(1);
      const sum = parts.reduce((n, p) => n + p.advantage!, 0);
      expect(Math.abs(sum)).toBeLessThan(1e-6);
    }
  }, 60_000);
});
