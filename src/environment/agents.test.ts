import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  createLocalSession,
  defineEnvironment,
  defineEpisodeRubric,
  type StepResult,
  toolCalls
} from "../core";
import type { AgentsRecord } from "./agents";

/** Three agents passing a token round; whoever holds it at the end wins. */
const relay = defineEnvironment({
  name: "relay",
  description: "Pass the token.",
  agents: { a: {}, b: { tools: ["pass"] }, c: { tools: ["shout"] } },
  maxSteps: 20,
  tools: (tool) => ({
    pass: tool({
      description: "Pass.",
      input: z.object({ to: z.string().optional() }),
      run: (_input, ctx) => `${ctx.agent} passed`
    }),
    shout: tool({
      description: "Shout.",
      input: z.object({}),
      run: (_input, ctx) => {
        ctx.episode.addReward(0.5);
        return `${ctx.agent} shouted`;
      }
    })
  }),
  reset: () => ({
    observations: { a: "You start.", c: "You wait." },
    turn: "a"
  })
});

const pass = () => toolCalls({ name: "pass", arguments: {} });
const agentsOf = (s: ReturnType<typeof createLocalSession>) =>
  s.parts.state.get("agents") as AgentsRecord;

describe("a multi-agent environment", () => {
  it("tags each agent's observations with it and leaves the others untold", async () => {
    const s = createLocalSession(relay);
    const { observations } = await s.reset();
    expect(observations).toEqual([
      { role: "user", content: "You start.", agent: "a" },
      { role: "user", content: "You wait.", agent: "c" }
    ]);
  });

  it("passes the turn round in the environment's order, each step one agent's", async () => {
    const s = createLocalSession(relay);
    await s.reset();
    const first = await s.step(pass());
    expect(first.agents).toEqual({
      agent: "a",
      turn: ["b"],
      rewards: { a: 0, b: 0, c: 0 },
      done: []
    });
    expect(first.observations).toEqual([
      expect.objectContaining({ role: "tool", content: "a passed", agent: "a" })
    ]);
    expect((await s.step(pass())).agents?.turn).toEqual(["c"]);
    // c may not pass: its tools are shout only, and its reward is its own.
    const refused = await s.step(pass());
    expect(refused.observations[0]!.content).toContain("Invalid tool call");
    expect(refused.agents?.turn).toEqual(["a"]);
    const outOfTurn = await s.step(pass(), "b").catch((e: Error) => e);
    expect(outOfTurn).toMatchObject({
      code: "not_your_turn",
      details: { agent: "b", turn: ["a"] }
    });
    expect(agentsOf(s).turn).toEqual(["a"]);
  });

  it("gives a tool's reward to the agent whose step called it", async () => {
    const s = createLocalSession(relay);
    await s.reset();
    await s.step(pass());
    await s.step(pass());
    const out = await s.step(toolCalls({ name: "shout" }));
    expect(out.agents?.rewards).toEqual({ a: 0, b: 0, c: 0.5 });
    expect(agentsOf(s).returns).toEqual({ a: 0, b: 0, c: 0.5 });
    // The session's own reward is the first agent's (a's), so that a
    // self-play episode's return is one side's, not every side's summed.
    expect(out.reward).toBe(0);
    await s.step(toolCalls({ name: "shout" }));
    expect(agentsOf(s).returns).toEqual({ a: 0.5, b: 0, c: 0.5 });
    expect((await s.step(pass())).reward).toBe(0);
  });

  it("makes the session's return the first agent's, whoever acts", async () => {
    const duel = defineEnvironment({
      name: "duel",
      description: "",
      agents: { a: {}, b: {} },
      tools: {},
      reset: () => "Go.",
      step: (_action, ctx) =>
        ctx.agent === "b"
          ? { observations: "b wins", rewards: { a: -1, b: 1 }, done: true }
          : { observations: "a waits" }
    });
    const s = createLocalSession(duel);
    await s.reset();
    expect((await s.step({ role: "assistant", content: "" })).reward).toBe(0);
    const last = await s.step({ role: "assistant", content: "" });
    expect(last).toMatchObject({ reward: -1, done: true });
    expect(last.agents?.rewards).toEqual({ a: -1, b: 1 });
  });

  it("refuses to be defined with a state key named agents or an agent without its tool", () => {
    expect(() =>
      defineEnvironment({
        name: "bad",
        description: "",
        agents: { a: { tools: ["nope"] } },
        tools: {},
        reset: () => ""
      })
    ).toThrow(/names tool "nope"/);
    expect(() =>
      defineEnvironment({
        name: "bad",
        description: "",
        agents: {},
        tools: {},
        reset: () => ""
      })
    ).toThrow(/names no agent/);
  });

  it("refuses to play every agent itself, or to play one beside an episode rubric", () => {
    const play = () => "ok";
    expect(() =>
      defineEnvironment({
        name: "bad",
        description: "",
        agents: { a: { play }, b: { play } },
        tools: {},
        reset: () => ""
      })
    ).toThrow(/leave at least one to a client/);
    expect(() =>
      defineEnvironment({
        name: "bad",
        description: "",
        agents: { a: {}, b: { play } },
        tools: {},
        reset: () => "",
        episodeRubric: defineEpisodeRubric({ solved: ({ done }) => done })
      })
    ).toThrow(/episode rubric and agents it plays/);
  });

  it("plays the environment's own agent in the step that hands it the turn, in memory too", async () => {
    const s = createLocalSession(
      defineEnvironment({
        name: "echo",
        description: "",
        agents: { a: {}, b: { play: () => "b answers" } },
        tools: {},
        reset: () => "Go.",
        step: (action, ctx): StepResult =>
          ctx.agent === "a"
            ? { observations: { b: "a spoke" }, turn: "b" }
            : {
                observations: { a: `b said: ${action.content}` },
                rewards: { a: 1 },
                turn: "a"
              }
      })
    );
    await s.reset();
    const out = await s.step({ role: "assistant", content: "hello" });
    expect(out).toMatchObject({
      reward: 1,
      agents: { agent: "a", turn: ["a"] }
    });
    expect(out.observations.map((m) => m.content)).toEqual([
      "b said: b answers"
    ]);
  });

  it("ends the episode when every agent is done, and truncates every agent at maxSteps", async () => {
    const ending = defineEnvironment({
      name: "ending",
      description: "",
      agents: { a: {}, b: {} },
      maxSteps: 3,
      tools: {},
      reset: () => "Go.",
      step: (_action, ctx) => ({
        observations: "ok",
        done: ctx.step === 1 ? ["a"] : false
      })
    });
    const s = createLocalSession(ending);
    await s.reset();
    // a is done after step 1: the turn skips it from then on.
    expect((await s.step({ role: "assistant", content: "" })).agents).toEqual({
      agent: "a",
      turn: ["b"],
      rewards: { a: 0, b: 0 },
      done: ["a"]
    });
    expect((await s.step({ role: "assistant" })).agents?.turn).toEqual(["b"]);
    const last = await s.step({ role: "assistant" });
    expect(last).toMatchObject({ done: false, truncated: true });
    expect(last.agents?.turn).toEqual([]);
  });
});
