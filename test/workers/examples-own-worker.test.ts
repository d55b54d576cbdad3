import { describe, expect, it } from "vitest";
import { guess } from "../../examples/own-worker/guess";
import worker, { Session } from "../../examples/own-worker/index";
import { createLocalSession } from "../../src/index";
import { toolCalls } from "../../src/messages/build";

const say = (n: number) => toolCalls({ name: "guess", arguments: { n } });

describe("own-worker example", () => {
  it("exports a worker and its session class", () => {
    expect(typeof worker.fetch).toBe("function");
    expect(typeof Session).toBe("function");
  });

  it("answers higher or lower and ends with reward 1 on the secret", async () => {
    const s = createLocalSession(guess);
    const { observations } = await s.reset({ task: { secret: 7 } });
    expect(observations[0]!.content).not.toContain("7");
    expect((await s.step(say(50))).observations[0]!.content).toBe("Lower.");
    const low = await s.step(say(3));
    expect(low).toMatchObject({ reward: 0, done: false });
    expect(low.observations[0]!.content).toBe("Higher.");
    const hit = await s.step(say(7));
    expect(hit).toMatchObject({ reward: 1, done: true });
    expect(hit.observations[0]!.content).toBe("Correct!");
    expect(s.parts.state.get("guesses")).toEqual([50, 3, 7]);
  });

  it("refuses a guess outside 1..100 as a tool error", async () => {
    const s = createLocalSession(guess);
    await s.reset();
    const out = await s.step(say(101));
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.done).toBe(false);
  });
});
