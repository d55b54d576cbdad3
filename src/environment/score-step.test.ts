import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createLocalSession, defineEnvironment, toolCalls } from "../core";
import type { JsonValue } from "../json";
import { isTrajectoryKey, KEPT_CHUNK, TRAJECTORY_KEY } from "./score-step";

const STEPS = 2 * KEPT_CHUNK + 22;

/** Waits until truncated; its episode rubric says which steps it was handed. */
const long = defineEnvironment({
  name: "long",
  description: "Wait until the episode is truncated.",
  maxSteps: STEPS,
  tools: (tool) => ({
    wait: tool({ description: "Wait.", input: z.object({}), run: () => "ok" })
  }),
  reset: () => "Wait.",
  rubric: (define) => define({ waited: () => 1 }),
  episodeRubric: (define) =>
    define(
      {
        seen: ({ steps }) => steps.length,
        inOrder: ({ steps }) => steps.every((s, i) => s.step === i + 1),
        rewards: ({ steps }) => steps.every((s) => s.reward === 1)
      },
      { weights: { seen: 0, inOrder: 0, rewards: 0 } }
    )
});

const wait = () => toolCalls({ name: "wait" });

/** The kept chunks by key, with how many steps each holds. */
const chunks = (keys: string[], get: (k: string) => JsonValue | undefined) =>
  Object.fromEntries(
    keys.filter(isTrajectoryKey).map((k) => [k, (get(k) as unknown[]).length])
  );

describe("an episode rubric's kept steps", () => {
  it("are kept in chunks a step rewrites one of, and handed back whole and in order when the episode ends", async () => {
    const s = createLocalSession(long);
    await s.reset();
    for (let i = 1; i < STEPS; i++) await s.step(wait());
    const hidden = s.parts.hidden;
    // Each step rewrote its own chunk: at most KEPT_CHUNK steps, not all before it.
    expect(chunks(hidden.keys(), (k) => hidden.get(k))).toEqual({
      [`${TRAJECTORY_KEY}:0`]: KEPT_CHUNK,
      [`${TRAJECTORY_KEY}:1`]: KEPT_CHUNK,
      [`${TRAJECTORY_KEY}:2`]: STEPS - 1 - 2 * KEPT_CHUNK
    });
    const last = await s.step(wait());
    expect(last.truncated).toBe(true);
    expect(last.reward_components).toMatchObject({
      "episode.seen": STEPS,
      "episode.inOrder": 1,
      "episode.rewards": 1
    });
    expect(hidden.keys().some(isTrajectoryKey)).toBe(false);
  });

  it("reads the one list a session kept before chunks, ahead of the chunks after it", async () => {
    const s = createLocalSession(long);
    await s.reset();
    for (let i = 1; i <= 3; i++) await s.step(wait());
    // Steps 1 to 3 as a session kept them before: the whole list, one key.
    const hidden = s.parts.hidden;
    const chunk = `${TRAJECTORY_KEY}:0`;
    hidden.set(TRAJECTORY_KEY, hidden.get(chunk)!);
    hidden.delete(chunk);
    for (let i = 4; i < STEPS; i++) await s.step(wait());
    const last = await s.step(wait());
    expect(last).toMatchObject({
      truncated: true,
      reward_components: { "episode.seen": STEPS, "episode.inOrder": 1 }
    });
    expect(hidden.keys().some(isTrajectoryKey)).toBe(false);
  });
});
