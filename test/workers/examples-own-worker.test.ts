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

  it("keeps the secret in the hidden store, answers higher or lower and ends with reward 1", async () => {
    const s = createLocalSession(guess);
    const { observations } = await s.reset({ task: { seed: 1 } });
    const secret = s.parts.hidden.get<number>("secret")!;
    expect(secret).toBe(20);
    expect(JSON.stringify(observations)).not.toContain("20");
    expect((await s.step(say(50))).observations[0]!.content).toBe("Lower.");
    const low = await s.step(say(3));
    expect(low).toMatchObject({ reward: 0, done: false });
    expect(low.observations[0]!.content).toBe("Higher.");
    const hit = await s.step(say(20));
    expect(hit).toMatchObject({ reward: 1, done: true });
    expect(hit.observations[0]!.content).toBe("Correct!");
    expect(s.parts.state.get("guesses")).toEqual([50, 3, 20]);
    expect(s.parts.state.get("tries")).toBe(3);
    // Nothing a client or the model reads carries it.
    expect(s.parts.state.toJSON()).not.toHaveProperty("secret");
    expect(s.parts.environment.isEmpty()).toBe(true);
  });

  it("draws a new secret each reset without a seed", async () => {
    const s = createLocalSession(guess);
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      await s.reset();
      const secret = s.parts.hidden.get<number>("secret")!;
      expect(secret).toBeGreaterThanOrEqual(1);
      expect(secret).toBeLessThanOrEqual(100);
      seen.add(secret);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it("refuses a guess outside 1..100 as a tool error", async () => {
    const s = createLocalSession(guess);
    await s.reset();
    const out = await s.step(say(101));
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.done).toBe(false);
  });
});
