// A rollout with a model: openaiPolicy against a scripted OpenAI-compatible
// server over real HTTP, and the CLI's --policy openai against wrangler dev,
// writing trajectories a trainer can load.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import type { Clock } from "../../src/client/clock";
import { openaiPolicy } from "../../src/client/openai-policy";
import type { PolicyDecision } from "../../src/client/policy";
import { rollout } from "../../src/client/rollout";
import type { Message } from "../../src/messages/schema";
import type { OpenAITool } from "../../src/protocol/index";
import { fakeOpenAIRequests, scriptFakeOpenAI } from "./fake-openai";
import { rolloutCli } from "./helpers/cli";

const fake = inject("fakeOpenAIUrl");
const baseUrl = inject("baseUrl");
const dir = mkdtempSync(join(tmpdir(), "roost-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => scriptFakeOpenAI(fake, []));

/** Backoff without waiting: the clock fires every timer at once. */
const instant: Clock = {
  now: () => 0,
  setTimeout: (callback) => {
    queueMicrotask(callback);
    return 0;
  },
  clearTimeout: () => undefined
};

const reply = (message: Record<string, unknown>, usage = true) => ({
  body: {
    choices: [{ index: 0, message: { role: "assistant", ...message } }],
    ...(usage
      ? { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }
      : {})
  }
});
const call = (name: string, args: string, id = "call_1") =>
  reply({
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: args } }]
  });

const tools: OpenAITool[] = [
  {
    type: "function",
    function: {
      name: "incr",
      description: "Increment.",
      parameters: { type: "object", properties: {} }
    }
  }
];
const user: Message = { role: "user", content: "Count to 2." };

describe("openaiPolicy", () => {
  const policy = () =>
    openaiPolicy({
      baseUrl: `${fake}/v1`,
      model: "fake-model",
      apiKey: "sk-test",
      temperature: 0.7,
      maxTokens: 64,
      clock: instant
    });

  it("sends the conversation as chat messages with the tools, and turns the tool calls into the action", async () => {
    await scriptFakeOpenAI(fake, [call("incr", '{"by": 1}')]);
    const history: Message[] = [
      user,
      {
        role: "assistant",
        tool_calls: [
          {
            id: "c0",
            type: "function",
            function: { name: "incr", arguments: {} }
          }
        ]
      }
    ];
    const observed: Message[] = [
      { role: "tool", tool_call_id: "c0", name: "incr", content: "counter=1" }
    ];
    const decision = (await policy()(
      observed,
      tools,
      history
    )) as PolicyDecision;
    expect(decision.action).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "incr", arguments: '{"by": 1}' }
        }
      ]
    });
    expect(decision.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15
    });
    const [sent] = await fakeOpenAIRequests(fake);
    expect(sent!.path).toBe("/v1/chat/completions");
    expect(sent!.headers.authorization).toBe("Bearer sk-test");
    expect(sent!.body).toEqual({
      model: "fake-model",
      messages: [
        { role: "user", content: "Count to 2." },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c0",
              type: "function",
              function: { name: "incr", arguments: "{}" }
            }
          ]
        },
        { role: "tool", tool_call_id: "c0", content: "counter=1" }
      ],
      tools,
      tool_choice: "auto",
      temperature: 0.7,
      max_tokens: 64
    });
  });

  it("keeps a reply without tool calls, or with broken ones, for the environment to answer", async () => {
    await scriptFakeOpenAI(fake, [
      reply({ content: "I think the answer is 4." }, false),
      reply({
        content: null,
        tool_calls: [{ function: { arguments: "{oops" } }]
      })
    ]);
    const p = policy();
    const none = (await p([user], tools, [])) as PolicyDecision;
    expect(none.action).toEqual({
      role: "assistant",
      content: "I think the answer is 4.",
      tool_calls: []
    });
    expect(none.usage).toBeUndefined();
    const broken = (await p([user], tools, [])) as PolicyDecision;
    expect(broken.action.tool_calls).toEqual([
      {
        id: "call_1_0",
        type: "function",
        function: { name: "", arguments: "{oops" }
      }
    ]);
  });

  it("retries a 429 and a 503 with backoff and records them; gives up on a 400", async () => {
    await scriptFakeOpenAI(fake, [
      { status: 429, body: { error: { message: "slow down" } } },
      { status: 503, text: "busy" },
      call("incr", "{}")
    ]);
    const decision = (await policy()([user], tools, [])) as PolicyDecision;
    expect(decision.action.tool_calls).toHaveLength(1);
    expect(decision.retries).toEqual([
      expect.stringContaining("HTTP 429"),
      expect.stringContaining("HTTP 503")
    ]);
    await scriptFakeOpenAI(fake, [{ status: 400, body: { error: "bad" } }]);
    await expect(policy()([user], tools, [])).rejects.toMatchObject({
      code: "model_error",
      status: 400
    });
  });

  it("rolls out with a model: trajectories carry the conversation, tools, model and usage", async () => {
    // Counter (Count to N): the model increments once, then stops calling tools.
    await scriptFakeOpenAI(fake, [
      call("incr", "{}", "m1"),
      reply({ content: "Done." })
    ]);
    const { trajectories } = await rollout({
      baseUrl,
      environment: "counter",
      policy: policy(),
      episodes: 1,
      maxSteps: 2
    });
    const [t] = trajectories;
    expect(t!.error).toBeNull();
    expect(t!.environment).toBe("counter");
    expect(t!.policy).toEqual({
      policy: "openai",
      model: "fake-model",
      base_url: `${fake}/v1`,
      temperature: 0.7,
      max_tokens: 64
    });
    expect(t!.tools.map((x) => x.function.name)).toEqual(["incr", "decr"]);
    expect(t!.usage).toEqual({
      prompt_tokens: 20,
      completion_tokens: 10,
      total_tokens: 30
    });
    expect(t!.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user"
    ]);
    expect(t!.messages[1]).toMatchObject({
      tool_calls: [{ id: "m1", function: { name: "incr", arguments: "{}" } }]
    });
    expect(t!.truncated).toBe(true);
  });
});

describe("npm run rollout -- --policy openai", () => {
  /**
   * The calculator with every episode submitting 0 at once (the fake's
   * script), through the CLI with the model flags; answers the trajectory
   * lines and the CLI's stderr.
   */
  const calculatorByModel = async (
    episodes: number,
    file: string,
    flags: string[]
  ) => {
    await scriptFakeOpenAI(
      fake,
      Array.from({ length: episodes }, (_, i) =>
        call("submit_answer", '{"answer": 0}', `s${i}`)
      )
    );
    const out = join(dir, file);
    const { stderr } = await rolloutCli(
      baseUrl,
      [
        "--env",
        "calculator",
        "--policy",
        "openai",
        "--base-url",
        `${fake}/v1`,
        "--model",
        "fake-model",
        "--episodes",
        String(episodes),
        "--out",
        out,
        ...flags
      ],
      { OPENAI_API_KEY: "sk-cli" }
    );
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    return { lines, stderr };
  };

  it("writes trajectories from a model and a summary", async () => {
    const { lines, stderr } = await calculatorByModel(4, "model.jsonl", [
      "--temperature",
      "1",
      "--concurrency",
      "1"
    ]);
    expect(lines.map((l) => [l.episode, l.error, l.done])).toEqual(
      [0, 1, 2, 3].map((i) => [i, null, true])
    );
    expect(lines[0].policy).toMatchObject({
      model: "fake-model",
      temperature: 1
    });
    expect(lines[0].task_index).toBe(0);
    expect(lines[0].messages[1].tool_calls[0].function.arguments).toBe(
      '{"answer": 0}'
    );
    expect(stderr).toContain("Finished 4 episodes");
    const sent = await fakeOpenAIRequests(fake);
    expect(sent[0]!.headers.authorization).toBe("Bearer sk-cli");
  }, 60_000);

  it("rolls out in groups: each group reset once and forked, 64 trajectories in 8 groups", async () => {
    const { lines, stderr } = await calculatorByModel(64, "groups.jsonl", [
      "--group-size",
      "8",
      "--concurrency",
      "16"
    ]);
    expect(lines).toHaveLength(64);
    expect(lines.every((l) => l.error === null && l.deleted)).toBe(true);
    const groups = new Map<number, typeof lines>();
    for (const l of lines)
      groups.set(l.group_id, [...(groups.get(l.group_id) ?? []), l]);
    expect([...groups.keys()].sort((a, b) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7
    ]);
    for (const [g, members] of groups) {
      expect(members.map((m) => m.group_index).sort()).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7
      ]);
      expect(members.map((m) => m.episode).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 8 }, (_, k) => g * 8 + k)
      );
      // One task and one identical first observation per group, on eight sessions.
      expect(new Set(members.map((m) => m.task_index))).toEqual(new Set([g]));
      expect(
        new Set(members.map((m) => JSON.stringify(m.observations[0])))
      ).toHaveProperty("size", 1);
      expect(new Set(members.map((m) => m.session_id)).size).toBe(8);
      for (const m of members) {
        expect(Object.keys(m)).toEqual(
          expect.arrayContaining([
            "environment",
            "task",
            "tools",
            "messages",
            "policy",
            "usage"
          ])
        );
      }
    }
    // Each group's questions differ from the next group's.
    expect(
      new Set(lines.map((l) => JSON.stringify(l.observations[0]))).size
    ).toBe(8);
    expect(stderr).toContain("Finished 64 episodes");
    expect(stderr).toMatch(/groups {8}8 of 8 episodes/);
  }, 120_000);
});
