/** @module The contract every kind of session keeps with an episode: the same refusals, counters and endings in memory and in a Durable Object. */

import { describe, expect, it } from "vitest";
import { type ErrorBody, RoostError } from "../errors";
import type { JsonObject } from "../json";
import { contentText, toolCalls } from "../messages/build";
import type { AssistantMessage, Message } from "../messages/schema";
import type { EpisodeSession, EpisodeStatus } from "./episode-session";

/**
 * One session of the `tally` environment (fixtures.case.ts), its answers
 * reduced to what both kinds of session share; a refusal is thrown as a
 * RoostError.
 */
export interface EpisodeDriver {
  reset(
    task?: JsonObject
  ): Promise<{ observations: string[]; tools: string[] }>;
  step(action: AssistantMessage): Promise<{
    observations: string[];
    reward: number;
    done: boolean;
    truncated: boolean;
  }>;
  call(
    tool: string,
    args?: JsonObject
  ): Promise<{ content: string; is_error: boolean }>;
  status(): Promise<EpisodeStatus>;
}

/** Opens a new session of `tally`. */
export type OpenTally = () => Promise<EpisodeDriver>;

const texts = (messages: readonly Pick<Message, "content">[]) =>
  messages.map((m) => contentText(m.content));

/** A driver over a session in memory (`createEpisodeSession`, `createLocalSession`). */
export const localDriver = (s: EpisodeSession): EpisodeDriver => ({
  reset: async (task) => {
    const out = await s.reset(task === undefined ? {} : { task });
    return {
      observations: texts(out.observations),
      tools: out.tools.map((t) => t.function.name)
    };
  },
  step: async (action) => {
    const { observations, reward, done, truncated } = await s.step(action);
    return { observations: texts(observations), reward, done, truncated };
  },
  call: async (tool, args) => {
    const { message } = await s.call(tool, args);
    return {
      content: contentText(message.content),
      is_error: message.is_error
    };
  },
  status: async () => s.status
});

/** The limit a session has unless configured otherwise (`limits.toolCallsPerAction`). */
const MAX_TOOL_CALLS = 64;

const mark = (reward = 1) => toolCalls({ name: "mark", arguments: { reward } });
const only = (name: string) => toolCalls({ name });
const many = (name: string, n: number) =>
  toolCalls(...Array.from({ length: n }, () => ({ name })));

/** The error body `attempt` is refused with; fails if it succeeds. */
const refusal = async (attempt: Promise<unknown>): Promise<ErrorBody> => {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof RoostError) return error.toBody();
    throw error;
  }
  throw new Error("expected a refusal");
};

const NOT_RESET = {
  code: "episode_not_running",
  message: "Reset the session before stepping."
};
const NO_EPISODE = {
  code: "episode_not_running",
  message: "Reset the session first: it has no episode yet."
};
const ENDED = {
  code: "episode_not_running",
  message: "The episode has ended; reset to start another."
};

const fresh = {
  steps: 0,
  reward: 0,
  return: 0,
  done: false,
  truncated: false
};

/**
 * Registers the contract under `label`.
 *
 * @example
 * runEpisodeContract("local session", async () =>
 *   localDriver(createLocalSession(tally))
 * );
 */
export const runEpisodeContract = (label: string, open: OpenTally) => {
  describe(`${label}: episode rules`, () => {
    it("refuses a step and a direct call before the first reset", async () => {
      const s = await open();
      expect(await refusal(s.step(mark()))).toEqual(NOT_RESET);
      expect(await refusal(s.call("peek"))).toEqual(NO_EPISODE);
      expect(await s.status()).toEqual({ episode: 0, ...fresh });
    });

    it("counts steps and sums their rewards into the return", async () => {
      const s = await open();
      expect(await s.reset()).toEqual({
        observations: ["Tally ready."],
        tools: ["mark", "close", "peek"]
      });
      expect(await s.step(mark(2))).toEqual({
        observations: ["marks=1"],
        reward: 2,
        done: false,
        truncated: false
      });
      expect(await s.step(mark(3))).toMatchObject({ reward: 3 });
      expect(await s.status()).toEqual({
        episode: 1,
        steps: 2,
        reward: 3,
        return: 5,
        done: false,
        truncated: false
      });
    });

    it("ends the episode with a done step: a further step is refused, a direct call is not", async () => {
      const s = await open();
      await s.reset();
      await s.step(mark());
      expect(await s.step(only("close"))).toEqual({
        observations: ["closed"],
        reward: 10,
        done: true,
        truncated: false
      });
      const ended = { episode: 1, ...fresh, steps: 2, reward: 10, return: 11 };
      expect(await s.status()).toEqual({ ...ended, done: true });
      expect(await refusal(s.step(only("peek")))).toEqual(ENDED);
      expect(await s.call("peek")).toEqual({
        content: "marks=1",
        is_error: false
      });
      expect(await s.status()).toEqual({ ...ended, done: true });
    });

    it("truncates at the environment's maxSteps and refuses the next step alike", async () => {
      const s = await open();
      await s.reset();
      for (let i = 1; i < 4; i++) {
        expect(await s.step(only("peek"))).toMatchObject({
          done: false,
          truncated: false
        });
      }
      expect(await s.step(only("peek"))).toMatchObject({
        done: false,
        truncated: true
      });
      expect(await s.status()).toMatchObject({ steps: 4, truncated: true });
      expect(await refusal(s.step(only("peek")))).toEqual(ENDED);
      expect(await s.status()).toMatchObject({ steps: 4 });
    });

    it("refuses a direct call to a tool the episode does not offer or the environment lacks", async () => {
      const s = await open();
      expect(await s.reset({ tools: ["peek", "mark"] })).toEqual({
        observations: ["Tally ready: peek, mark."],
        tools: ["mark", "peek"]
      });
      expect(await refusal(s.call("close"))).toEqual({
        code: "not_found",
        message:
          'Tool "close" of tally is not offered in this episode; its reset chose: mark, peek.',
        details: { tool: "close", episode_tools: ["mark", "peek"] }
      });
      expect(await refusal(s.call("nope"))).toEqual({
        code: "not_found",
        message: 'Environment tally has no tool "nope". Tools: mark, peek.',
        details: { tool: "nope", tools: ["mark", "peek"] }
      });
      // In a step it is an invalid call the model reads; nothing ends.
      expect(await s.step(only("close"))).toEqual({
        observations: [
          "Invalid tool call: close is not a tool. Tools: mark, peek."
        ],
        reward: 0,
        done: false,
        truncated: false
      });
      expect(await s.status()).toEqual({ episode: 1, ...fresh, steps: 1 });
    });

    it("refuses an action over the tool-call limit before any call runs", async () => {
      const s = await open();
      await s.reset();
      expect(await refusal(s.step(many("mark", MAX_TOOL_CALLS + 1)))).toEqual({
        code: "payload_too_large",
        message: `An action may make at most ${MAX_TOOL_CALLS} tool calls.`,
        details: { limit: "toolCallsPerAction", max: MAX_TOOL_CALLS }
      });
      expect(await s.status()).toEqual({ episode: 1, ...fresh });
      expect((await s.call("peek")).content).toBe("marks=0");
      const full = await s.step(many("peek", MAX_TOOL_CALLS));
      expect(full.observations).toHaveLength(MAX_TOOL_CALLS);
      expect(await s.status()).toMatchObject({ steps: 1 });
    });

    it("starts the next episode after the end with zeroed counters, its own tools and state", async () => {
      const s = await open();
      await s.reset({ tools: ["mark", "close"] });
      await s.step(mark(4));
      await s.step(only("close"));
      expect(await s.status()).toMatchObject({ episode: 1, done: true });
      expect(await s.reset()).toMatchObject({
        tools: ["mark", "close", "peek"]
      });
      expect(await s.status()).toEqual({ episode: 2, ...fresh });
      expect((await s.call("peek")).content).toBe("marks=0");
      expect(await s.step(mark())).toMatchObject({ reward: 1 });
      expect(await s.status()).toEqual({
        episode: 2,
        ...fresh,
        steps: 1,
        reward: 1,
        return: 1
      });
    });

    it("does not count a direct call as a step, nor its reward or ending", async () => {
      const s = await open();
      await s.reset();
      expect(await s.call("mark", { reward: 5 })).toEqual({
        content: "marks=1",
        is_error: false
      });
      expect(await s.call("close")).toEqual({
        content: "closed",
        is_error: false
      });
      expect(await s.status()).toEqual({ episode: 1, ...fresh });
      // What the call wrote stays: the next step sees it.
      expect(await s.step(only("peek"))).toMatchObject({
        observations: ["marks=1"]
      });
      expect(await s.status()).toEqual({ episode: 1, ...fresh, steps: 1 });
    });
  });
};
