// Rubrics that write the hidden store as they score (scribe): re-scoring
// gives each the store as it found it then, not with its own write of
// that step already there, and a fork at a past step gets the store as
// the rubrics left it.

import { describe, expect, it } from "vitest";
import type { ForkResponse, RescoreResponse } from "../../src/protocol";
import {
  createResetSession,
  forkCopy,
  json,
  send,
  step,
  withScope
} from "./helpers";

const rescore = async (
  s: Awaited<ReturnType<typeof createResetSession>>,
  rubric: string
): Promise<RescoreResponse> => {
  const grader = await withScope(s, "grade");
  const res = await grader.call("/rescore", send("POST", { rubric }));
  expect(res.status).toBe(200);
  return json<RescoreResponse>(res);
};

describe("re-scoring rubrics that write the hidden store", () => {
  it("reproduces what they answered: each sees the store as it found it, its own writes after", async () => {
    const s = await createResetSession({ environment: "scribe" });
    const answered = [
      await step(s, "write", { n: 3 }),
      await step(s, "write", { n: 5 }),
      await step(s, "write", { n: 7 })
    ];
    expect(answered.map((a) => a.reward_components)).toEqual([
      { count: 1, last: 3 },
      { count: 2, last: 5 },
      {
        count: 3,
        last: 7,
        episode: 3,
        "episode.total": 3,
        "episode.steps": 3
      }
    ]);

    const steps = await rescore(s, "rubric");
    expect(steps.episodes[0]!.steps.map((x) => x.rescored!.components)).toEqual(
      [
        { count: 1, last: 3 },
        { count: 2, last: 5 },
        { count: 3, last: 7 }
      ]
    );
    const episode = await rescore(s, "episodeRubric");
    expect(episode.episodes[0]!.steps.at(-1)!.rescored).toEqual({
      total: 3,
      components: { episode: 3, "episode.total": 3, "episode.steps": 3 }
    });
  });

  it("forks at a past step with the store as the rubrics left it, and the episode rubric's steps before it", async () => {
    const s = await createResetSession({ environment: "scribe" });
    await step(s, "write", { n: 3 });
    await step(s, "write", { n: 5 });
    await step(s, "write", { n: 7 });
    const res = await s.call("/fork", send("POST", { step: 1 }));
    expect(res.status).toBe(201);
    const [copy] = (await json<ForkResponse>(res)).sessions;
    const c = forkCopy(copy!, "scribe");
    // The count the first step's rubric left is there for the second.
    expect((await step(c, "write", { n: 4 })).reward_components).toEqual({
      count: 2,
      last: 4
    });
    // The episode rubric is handed all three steps, the one before the fork too.
    expect((await step(c, "write", { n: 6 })).reward_components).toEqual({
      count: 3,
      last: 6,
      episode: 3,
      "episode.total": 3,
      "episode.steps": 3
    });
  });
});
