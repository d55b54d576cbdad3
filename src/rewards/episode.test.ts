import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createLocalSession, defineEnvironment, toolCalls } from "../core";
import { isTrajectoryKey } from "../environment/score-step";
import { defineState } from "../state/define-state";
import { defineEpisodeRubric, discount } from "./episode";
import { defineRubric } from "./weighted-sum";

/** Walk to a target; the episode ends on arrival or after 4 steps. */
const walk = defineEnvironment({
  name: "walk",
  description: "Reach the target.",
  task: z.object({ target: z.number() }).default({ target: 3 }),
  state: defineState({ at: { type: z.number().default(0) } }),
  maxSteps: 4,
  tools: (tool) => ({
    move: tool({
      description: "One step forward.",
      input: z.object({}),
      run: (_, ctx) => {
        ctx.state.set("at", ctx.state.get("at") + 1);
        if (ctx.state.get("at") === ctx.task.target) ctx.episode.end();
        return `at=${ctx.state.get("at")}`;
      }
    })
  }),
  reset: () => "Walk.",
  rubric: (define) =>
    define(
      {
        moved: ({ observations }) => observations.length === 1,
        distance: ({ ctx }) => ctx.task.target - ctx.state.get("at")
      },
      { weights: { distance: 0 } }
    ),
  episodeRubric: (define) =>
    define(
      {
        arrived: ({ done, ctx }) =>
          done && ctx.state.get("at") === ctx.task.target,
        moves: ({ steps }) =>
          steps.filter((s) => s.observations.some((o) => o.role === "tool"))
            .length,
        stepsSeen: ({ steps }) => steps.map((s) => s.step).join("") === "123"
      },
      { weights: { arrived: 10, moves: 0, stepsSeen: 0 }, gamma: 0.5 }
    )
});

const move = () => toolCalls({ name: "move" });

describe("episode rubrics", () => {
  it("spreads γ^(T−t) × score back over T steps", () => {
    expect(discount(8, 4, 0.5)).toEqual([1, 2, 4, 8]);
    expect(discount(1, 1, 0.9)).toEqual([1]);
  });

  it("arrive on the step that ends the episode, scored over every step, discounted", async () => {
    const s = createLocalSession(walk);
    await s.reset();
    const first = await s.step(move());
    // A step rubric's components every step; the metric is not added.
    expect(first.reward).toBe(1);
    expect(first.reward_components).toEqual({ moved: 1, distance: 2 });
    expect(s.parts.hidden.keys().some(isTrajectoryKey)).toBe(true);
    const second = await s.step(move());
    expect(second.reward_components).toEqual({ moved: 1, distance: 1 });
    const last = await s.step(move());
    expect(last.done).toBe(true);
    expect(last.reward).toBe(1 + 10);
    expect(last.reward_components).toEqual({
      moved: 1,
      distance: 0,
      episode: { value: 10, per_step: [2.5, 5, 10] },
      "episode.arrived": 1,
      "episode.moves": 3,
      "episode.stepsSeen": 1
    });
    expect(Object.keys(last.reward_components!)).toEqual([
      "moved",
      "distance",
      "episode",
      "episode.arrived",
      "episode.moves",
      "episode.stepsSeen"
    ]);
    // The return counts the episode's score once, on the last step.
    expect(s.status.return).toBe(13);
    expect(s.parts.hidden.keys().some(isTrajectoryKey)).toBe(false);
  });

  it("score a truncated episode too, and a new episode starts with no steps kept", async () => {
    const far = createLocalSession(walk);
    await far.reset({ task: { target: 9 } });
    for (let i = 0; i < 3; i++) {
      expect((await far.step(move())).reward_components).not.toHaveProperty(
        "episode"
      );
    }
    const last = await far.step(move());
    expect(last.truncated).toBe(true);
    expect(last.reward_components).toMatchObject({
      episode: { value: 0, per_step: [0, 0, 0, 0] },
      "episode.arrived": 0,
      "episode.moves": 4
    });
    await far.reset();
    await far.step(move());
    await far.step(move());
    const again = await far.step(move());
    expect(again.reward_components).toMatchObject({
      "episode.stepsSeen": 1,
      "episode.moves": 3
    });
  });

  it("refuses a gamma outside (0, 1]", () => {
    expect(() => defineEpisodeRubric({ a: () => 1 }, { gamma: 0 })).toThrow(
      /gamma/
    );
    expect(() => defineEpisodeRubric({ a: () => 1 }, { gamma: 1.5 })).toThrow(
      /gamma/
    );
  });

  it("answer evaluate's reward as the component `evaluate`, whose done still ends the episode", async () => {
    const judged = defineEnvironment({
      name: "judged",
      description: "Evaluate and a rubric together.",
      tools: (tool) => ({
        say: tool({
          description: "Say something.",
          input: z.object({ text: z.string() }),
          run: ({ text }) => text
        })
      }),
      reset: () => "Say done.",
      evaluate: ({ observations }) => ({
        reward: 0.5,
        done: observations[0]?.content === "done"
      }),
      rubric: defineRubric({
        polite: ({ observations }) =>
          /please/.test(String(observations[0]?.content))
      })
    });
    const s = createLocalSession(judged);
    await s.reset();
    const first = await s.step(
      toolCalls({ name: "say", arguments: { text: "please" } })
    );
    expect(first).toMatchObject({
      reward: 1.5,
      done: false,
      reward_components: { evaluate: 0.5, polite: 1 }
    });
    const last = await s.step(
      toolCalls({ name: "say", arguments: { text: "done" } })
    );
    expect(last).toMatchObject({
      reward: 0.5,
      done: true,
      reward_components: { evaluate: 0.5, polite: 0 }
    });
  });

  it("leave steps of an environment without rubrics as they were", async () => {
    const plain = defineEnvironment({
      name: "plain",
      description: "No rubric.",
      tools: (tool) => ({
        say: tool({ description: "Say.", input: z.object({}), run: () => "ok" })
      }),
      reset: () => "Go.",
      evaluate: () => ({ reward: 1 })
    });
    const s = createLocalSession(plain);
    await s.reset();
    const out = await s.step(toolCalls({ name: "say" }));
    expect(out.reward).toBe(1);
    expect(out).not.toHaveProperty("reward_components");
  });
});
