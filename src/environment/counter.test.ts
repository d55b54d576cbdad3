import { describe, expect, it } from "vitest";
import { counter } from "../../examples/counter/index";
import { toolCalls } from "../messages/build";
import { createEpisodeSession } from "./episode-session";

// Aviary's CounterEnv, ported: reset gives the observation and two tools;
// ten incr calls give reward 1 and done.
describe("counter environment (Aviary)", () => {
  it("lists incr and decr for the model", () => {
    expect(counter.toolSchemas.map((t) => t.function.name)).toEqual([
      "incr",
      "decr"
    ]);
    expect(counter.toolSchemas[0]).toEqual({
      type: "function",
      function: {
        name: "incr",
        description: "Increment the counter.",
        parameters: { type: "object", properties: {}, required: [] }
      }
    });
  });

  it("reaches reward 1 and done after ten incr steps", async () => {
    const s = createEpisodeSession(counter);
    const { observations } = await s.reset();
    expect(observations).toEqual([
      { role: "user", content: "Count to 10. counter=0" }
    ]);
    for (let i = 1; i <= 9; i++) {
      const out = await s.step(toolCalls({ name: "incr" }));
      expect(out.observations[0]).toMatchObject({
        role: "tool",
        name: "incr",
        content: `counter=${i}`
      });
      expect(out).toMatchObject({ reward: 0, done: false, truncated: false });
    }
    const last = await s.step(toolCalls({ name: "incr" }));
    expect(last).toMatchObject({ reward: 1, done: true, truncated: false });
    expect(s.status).toMatchObject({
      steps: 10,
      reward: 1,
      return: 1,
      done: true
    });
    await expect(s.step(toolCalls({ name: "incr" }))).rejects.toMatchObject({
      code: "episode_not_running"
    });
  });

  it("counts down with decr and takes a target from the task", async () => {
    const s = createEpisodeSession(counter);
    await s.reset({ task: { target: 2 } });
    const out = await s.step(
      toolCalls({ name: "incr" }, { name: "incr" }, { name: "decr" })
    );
    expect(out.observations.map((m) => m.content)).toEqual([
      "counter=1",
      "counter=2",
      "counter=1"
    ]);
    expect(out.reward).toBe(0);
    expect((await s.step(toolCalls({ name: "incr" }))).done).toBe(true);
  });
});

describe("initial state in a local session", () => {
  it("seeds the state before the environment's reset reads it, and a bad one changes nothing", async () => {
    const s = createEpisodeSession(counter);
    const { observations } = await s.reset({ state: { count: 8 } });
    // The reset's observation already sees the seeded counter.
    expect(observations).toEqual([
      { role: "user", content: "Count to 10. counter=8" }
    ]);
    const out = await s.step(toolCalls({ name: "incr" }));
    expect(out.observations[0]).toMatchObject({ content: "counter=9" });
    await expect(s.reset({ state: { count: "eight" } })).rejects.toMatchObject({
      code: "invalid_state_value"
    });
    await expect(s.reset({ state: { counter: 1 } })).rejects.toMatchObject({
      code: "unknown_state_key"
    });
    // Still the same episode, as it was.
    expect(s.status).toMatchObject({ episode: 1, steps: 1 });
    expect(s.parts.state.get("count")).toBe(9);
  });
});
