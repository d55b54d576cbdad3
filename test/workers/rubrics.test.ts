import { describe, expect, it } from "vitest";
import type { EventsResponse, StepResponse } from "../../src/protocol";
import type { EnvironmentsResponse } from "../../src/protocol/http-environments";
import { call, createResetSession, json, step } from "./helpers";

const stepEvents = async (s: Awaited<ReturnType<typeof createResetSession>>) =>
  (
    await json<EventsResponse>(await s.call("/events?after=0&limit=1000"))
  ).events.filter((e) => e.type === "step");

describe("a session of an environment with rubrics", () => {
  it("answers each step's reward_components in the response and the step event; the episode's arrive on the last step", async () => {
    const s = await createResetSession({ environment: "graded" });
    const first = await step(s, "guess", { n: 3 });
    expect(first).toMatchObject({ reward: 0, done: false });
    expect(first.reward_components).toEqual({
      answer: 0,
      "answer.check": 1,
      "answer.score": 0,
      length: 1,
      judge: { value: 0, error: "no judge configured" }
    });
    const last: StepResponse = await step(s, "guess", { n: 7 });
    expect(last.done).toBe(true);
    // answer 1, the metric not counted, the episode's `solved` 1.
    expect(last.reward).toBe(2);
    expect(last.reward_components).toEqual({
      answer: 1,
      "answer.check": 1,
      "answer.score": 1,
      length: 1,
      judge: { value: 0, error: "no judge configured" },
      episode: { value: 1, per_step: [0.5, 1] },
      "episode.solved": 1,
      "episode.first_try": 0
    });
    // The order of the report survives the wire.
    expect(Object.keys(last.reward_components!)).toEqual([
      "answer",
      "answer.check",
      "answer.score",
      "length",
      "judge",
      "episode",
      "episode.solved",
      "episode.first_try"
    ]);
    const events = await stepEvents(s);
    expect(events.map((e) => e.reward_components)).toEqual([
      first.reward_components,
      last.reward_components
    ]);
    const status = await json<{ return: number }>(await s.call(""));
    expect(status.return).toBe(2);
  });

  it("scores the episode rubric on a truncated episode, and a reset keeps none of its steps", async () => {
    const s = await createResetSession({ environment: "graded" });
    await step(s, "guess", { n: 1 });
    const last = await step(s, "guess", { n: 2 });
    expect(last).toMatchObject({ truncated: true, reward: 0 });
    expect(last.reward_components).toMatchObject({
      episode: { value: 0, per_step: [0, 0] },
      "episode.solved": 0
    });
    expect(
      (
        await s.call("/reset", {
          method: "POST",
          body: "{}",
          headers: { "Content-Type": "application/json" }
        })
      ).status
    ).toBe(200);
    const again = await step(s, "guess", { n: 7 });
    expect(again.reward_components).toMatchObject({
      episode: { value: 1, per_step: [1] },
      "episode.first_try": 1
    });
  });

  it("answers no reward_components for an environment without rubrics", async () => {
    const s = await createResetSession({ environment: "counter" });
    const out = await step(s, "incr");
    expect(out).not.toHaveProperty("reward_components");
    const [event] = await stepEvents(s);
    expect(event).toBeDefined();
    expect(event).not.toHaveProperty("reward_components");
  });

  it("lists which components are metrics in GET /v1/environments, so a chart can tell them from rewards", async () => {
    const { environments } = await json<EnvironmentsResponse>(
      await call("/v1/environments")
    );
    const byName = new Map(environments.map((e) => [e.name, e]));
    // The step rubric's `length` and the episode rubric's `first_try`,
    // named as the step answer reports them; the gate's parts are not.
    expect(byName.get("graded")?.reward_metrics).toEqual([
      "length",
      "episode.first_try"
    ]);
    expect(byName.get("calculator")?.reward_metrics).toEqual(["format"]);
    expect(byName.get("counter")).not.toHaveProperty("reward_metrics");
  });
});
