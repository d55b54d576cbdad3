import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  codeAnalyst,
  oracleCode,
  readQuestion
} from "../../examples/code-analyst/index";
import { createEpisodeSession } from "../../src/environment/episode-session";
import { toolCalls } from "../../src/messages/build";
import { loaderIsolates } from "../../src/session/isolates";

const session = () =>
  createEpisodeSession(codeAnalyst, {
    isolates: loaderIsolates(env, "LOADER")!
  });

describe("examples/code-analyst", () => {
  it("answers every task of its dataset with the oracle's code, in the sandbox", async () => {
    const size = codeAnalyst.dataset!.size ?? 0;
    expect(size).toBeGreaterThan(100);
    for (let i = 0; i < size; i++) {
      const s = session();
      await s.reset({ task_index: i });
      const task = s.task as Parameters<typeof oracleCode>[0] & {
        question: string;
        answer: number;
      };
      // The scripted policy (policy.ts) reads each question back exactly.
      expect(readQuestion(task.question)).toEqual({
        metric: task.metric,
        animal: task.animal,
        category: task.category
      });
      const out = await s.call("run_js", { code: oracleCode(task) });
      expect(out.message.is_error).toBe(false);
      expect(JSON.parse(out.message.content as string)).toEqual({
        result: task.answer
      });
    }
  });

  it("rewards the exact answer with 1 and ends the episode; a wrong one with 0", async () => {
    const right = session();
    await right.reset({ task_index: 3 });
    const task = right.task as { answer: number };
    const policy = codeAnalyst.validation!.oracle!(right.task as never);
    const step = await right.step((await policy([], [], [])) as never);
    expect(
      step.observations.map((o) => (o as { is_error?: boolean }).is_error)
    ).toEqual([false, false]);
    expect(step).toMatchObject({ reward: 1, done: true });
    const wrong = session();
    await wrong.reset({ task_index: 3 });
    const miss = await wrong.step(
      toolCalls({
        name: "submit_answer",
        arguments: { answer: task.answer + 1 }
      })
    );
    expect(miss).toMatchObject({ reward: 0, done: true });
  });
});
