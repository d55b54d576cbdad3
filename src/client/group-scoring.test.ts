import { describe, expect, it } from "vitest";
import { defineEpisodeRubric } from "../rewards/episode";
import { defineRubric } from "../rewards/weighted-sum";
import { groupAdvantages } from "./group-advantages";
import { judgePrompt, parseJudgement, ranks } from "./group-judge";
import { rescoreTrajectory, type TrajectoryLine } from "./rescore";

const line = (group_id: number | null, r: number, error: unknown = null) => ({
  group_id,
  return: r,
  error
});

describe("groupAdvantages", () => {
  it("normalises each return by its group's mean and population std plus ε", () => {
    const { trajectories, groups, flat_groups } = groupAdvantages([
      line(0, 1),
      line(0, 0),
      line(0, 0),
      line(0, 1),
      line(1, 3),
      line(1, 3)
    ]);
    // Returns 1, 0, 0, 1: mean 0.5, population std 0.5.
    expect(trajectories.slice(0, 4).map((t) => t.advantage)).toEqual([
      0.5 / (0.5 + 1e-6),
      -0.5 / (0.5 + 1e-6),
      -0.5 / (0.5 + 1e-6),
      0.5 / (0.5 + 1e-6)
    ]);
    expect(trajectories[0]).toMatchObject({ group_mean: 0.5, group_std: 0.5 });
    expect(trajectories.slice(4).map((t) => t.advantage)).toEqual([0, 0]);
    expect(groups.map((g) => g.flat)).toEqual([false, true]);
    expect(flat_groups).toBe(1);
  });

  it("gives exactly 0 to a group of equal returns that floating-point sums would not", () => {
    const { trajectories, flat_groups } = groupAdvantages([
      line(0, 0.1),
      line(0, 0.1),
      line(0, 0.1)
    ]);
    expect(trajectories.map((t) => t.advantage)).toEqual([0, 0, 0]);
    expect(trajectories[0]!.group_std).toBe(0);
    expect(flat_groups).toBe(1);
  });

  it("leaves out episodes with an error and those without a group; does not change its input", () => {
    const input = [
      line(0, 1),
      line(0, 5, { code: "x" }),
      line(0, 0),
      line(null, 1)
    ];
    const copy = structuredClone(input);
    const { trajectories, groups } = groupAdvantages(input);
    expect(trajectories.map((t) => t.advantage)).toEqual([
      0.5 / (0.5 + 1e-6),
      null,
      -0.5 / (0.5 + 1e-6),
      null
    ]);
    expect(trajectories[1]!.group_mean).toBe(0.5);
    expect(trajectories[3]).toMatchObject({
      group_mean: null,
      group_std: null
    });
    expect(groups).toEqual([
      { group_id: 0, scored: 2, mean: 0.5, std: 0.5, flat: false }
    ]);
    expect(input).toEqual(copy);
  });

  it("takes the sample std, another ε, or another score when asked", () => {
    const rows = [line(0, 1), line(0, 0)];
    const sample = groupAdvantages(rows, { std: "sample", epsilon: 0 });
    expect(sample.trajectories[0]!.group_std).toBeCloseTo(Math.SQRT1_2, 12);
    expect(sample.trajectories[0]!.advantage).toBeCloseTo(Math.SQRT1_2, 12);
    const judged = groupAdvantages(
      [
        { ...line(0, 1), group_score: 0.2 },
        { ...line(0, 1), group_score: 0.6 }
      ],
      { score: (t) => t.group_score, epsilon: 0 }
    );
    expect(judged.trajectories[0]!.advantage).toBeCloseTo(-1, 12);
    expect(judged.trajectories[1]!.advantage).toBeCloseTo(1, 12);
    expect(() => groupAdvantages(rows, { epsilon: -1 })).toThrow(/epsilon/);
  });
});

describe("the group judge's prompt and answer", () => {
  const shared = [
    { role: "user" as const, content: "What is 2 + 2?" },
    { role: "assistant" as const, content: null }
  ];
  it("shows the shared start once, each attempt after it, and cuts long messages saying how much", () => {
    const [system, user] = judgePrompt(
      [
        { messages: [shared[0]!, { role: "assistant", content: "4" }] },
        {
          messages: [shared[0]!, { role: "assistant", content: "x".repeat(60) }]
        }
      ],
      { maxMessageChars: 20, rubric: "- Right beats wrong." }
    );
    expect(system!.content).toContain("- Right beats wrong.");
    expect(user!.content.split("What is 2 + 2?")).toHaveLength(2);
    expect(user!.content).toContain(
      '<trajectory id="1">\n[assistant] 4\n</trajectory>'
    );
    expect(user!.content).toContain(
      `[assistant] ${"x".repeat(20)}… [40 more characters cut]`
    );
  });

  it("keeps a long trajectory's first and last messages and counts those left out", () => {
    const messages = Array.from({ length: 40 }, (_, i) => ({
      role: "user" as const,
      content: `message ${i}`
    }));
    const [, user] = judgePrompt([{ messages }, { messages: [] }], {
      maxTrajectoryChars: 100
    });
    expect(user!.content).toContain("[user] message 0");
    expect(user!.content).toContain("[user] message 39");
    expect(user!.content).toMatch(/\[… \d+ messages left out …\]/);
    expect(user!.content).not.toContain("message 20\n");
  });

  it("parses one score per id, in id order, and refuses anything else", () => {
    expect(
      parseJudgement(
        'Sure: {"scores": [{"trajectory_id": 2, "score": 0.1}, {"trajectory_id": "1", "score": 1, "explanation": "best"}]}',
        2
      )
    ).toEqual([
      { score: 1, explanation: "best" },
      { score: 0.1, explanation: null }
    ]);
    expect(
      parseJudgement(
        '<think>{"scores": []}</think>```json\n{"scores": [{"trajectory_id": "1", "score": 0.5}]}\n```',
        1
      )
    ).toEqual([{ score: 0.5, explanation: null }]);
    expect(() => parseJudgement("no", 2)).toThrow(/no JSON object/);
    expect(() =>
      parseJudgement('{"scores": [{"trajectory_id": "1", "score": 1.5}]}', 1)
    ).toThrow(/score in \[0, 1\]/);
    expect(() =>
      parseJudgement('{"scores": [{"trajectory_id": "1", "score": 1}]}', 2)
    ).toThrow(/left out 2/);
  });

  it("ranks 1 for the best, ties sharing the better rank", () => {
    expect(ranks([0.5, 0.9, 0.5, 0.1])).toEqual([2, 1, 2, 4]);
  });
});

describe("rescoreTrajectory", () => {
  const tool = (content: string) => ({
    role: "tool" as const,
    tool_call_id: "c",
    name: "say",
    content
  });
  const action = { role: "assistant" as const, content: null, tool_calls: [] };
  const base: TrajectoryLine = {
    episode: 0,
    environment: "e",
    task: { word: "yes" },
    session_id: null,
    task_index: null,
    split: null,
    group_id: null,
    group_index: null,
    tools: [],
    messages: [],
    policy: null,
    usage: null,
    model_retries: [],
    observations: [[], [tool("no")], [tool("yes")]],
    actions: [action, action],
    rewards: [0.5, 10.5],
    reward_components: [
      { evaluate: 0.5, said: 0 },
      { evaluate: 0.5, said: 0, episode: 10, "episode.done": 1 }
    ],
    return: 11,
    done: true,
    truncated: false,
    reset_ms: 0,
    step_ms: [],
    duration_ms: 0,
    error: null,
    deleted: true
  };
  const said = defineRubric<{
    observations: { content: string }[];
    ctx: { task: { word: string } };
  }>({
    said: ({ observations, ctx }) => observations[0]?.content === ctx.task.word
  });

  it("replaces the step rubric, keeps evaluate's reward and the old episode score", async () => {
    const t = await rescoreTrajectory(base, { rubric: said as never });
    expect(t.reward_components).toEqual([
      { evaluate: 0.5, said: 0 },
      { evaluate: 0.5, said: 1, episode: 10, "episode.done": 1 }
    ]);
    expect(t.rewards).toEqual([0.5, 11.5]);
    expect(t.return).toBe(12);
    expect(t.previous.return).toBe(11);
  });

  it("replaces the episode rubric alone, spreading it with gamma, and keeps the step scores", async () => {
    const episodeRubric = defineEpisodeRubric(
      { short: ({ steps }) => steps.length === 2 },
      { weights: { short: 4 }, gamma: 0.5 }
    );
    const t = await rescoreTrajectory(base, {
      episodeRubric: episodeRubric as never
    });
    expect(t.rewards).toEqual([0.5, 4.5]);
    expect(t.reward_components[1]).toEqual({
      evaluate: 0.5,
      said: 0,
      episode: { value: 4, per_step: [2, 4] },
      "episode.short": 1
    });
  });

  it("makes a read of the state or a store that component's error; the others score", async () => {
    const nosy = defineRubric<{ ctx: { state: { get(k: string): unknown } } }>({
      peek: ({ ctx }) => ctx.state.get("x") === 1,
      one: () => 1
    });
    const t = await rescoreTrajectory(base, { rubric: nosy as never });
    expect(t.reward_components[0]).toEqual({
      evaluate: 0.5,
      peek: {
        value: 0,
        error: expect.stringMatching(
          /^ctx\.state is not in a trajectories file/
        )
      },
      one: 1
    });
    expect(t.rewards).toEqual([1.5, 11.5]);
  });
});
