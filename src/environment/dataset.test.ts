import { describe, expect, it } from "vitest";
import * as z from "zod";
import { dataset, generated } from "./dataset";
import { defineEnvironment } from "./define-environment";
import { createEpisodeSession } from "./episode-session";
import { createRegistry } from "./registry";

const quiz = defineEnvironment({
  name: "quiz",
  description: "Tasks from splits.",
  task: z.object({ q: z.string() }),
  splits: {
    train: dataset({ size: 2, get: (i) => ({ q: `train ${i}` }) }),
    practice: generated({ get: (seed) => ({ q: `seed ${seed}` }) })
  },
  tools: {},
  reset: ({ task }) => task.q
});

const first = async (
  request: Parameters<ReturnType<typeof createEpisodeSession>["reset"]>[0]
) => (await createEpisodeSession(quiz).reset(request)).observations[0]?.content;

describe("dataset splits in a local session", () => {
  it("pick by task_index + split; a generated split takes any seed", async () => {
    expect(await first({ task_index: 1, split: "train" })).toBe("train 1");
    expect(
      await first({ task_index: Number.MAX_SAFE_INTEGER, split: "practice" })
    ).toBe(`seed ${Number.MAX_SAFE_INTEGER}`);
  });

  it("refuse an unknown split, an index out of range, and an index without a split when there is no default dataset", async () => {
    await expect(first({ task_index: 0, split: "eval" })).rejects.toMatchObject(
      { code: "invalid_request", details: { field: "split" } }
    );
    await expect(
      first({ task_index: 2, split: "train" })
    ).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("out of range")
    });
    await expect(first({ task_index: 0 })).rejects.toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("name a split")
    });
    await expect(first({ split: "train" })).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "task_index" }
    });
  });

  it("are listed with their size, or as generated", () => {
    const [info] = createRegistry([quiz]).describe();
    expect(info).toMatchObject({
      splits: [
        { name: "train", size: 2, generated: false },
        { name: "practice", generated: true }
      ]
    });
    expect(info).not.toHaveProperty("dataset_size");
  });

  it("must have names that match the name rule", () => {
    expect(() =>
      defineEnvironment({
        name: "bad",
        description: "A split with a space.",
        splits: { "hold out": dataset({ size: 1, get: () => ({}) }) },
        tools: {},
        reset: () => ""
      })
    ).toThrow(/Split name "hold out"/);
  });
});
