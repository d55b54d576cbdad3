// OpenEnv's and Aviary's clients, unmodified, playing one agent of a
// multi-agent environment against wrangler dev: the environment plays the
// other (tictactoe-bot's o, support's customer), so each step's answer
// holds its reply, the client reads only its agent's view, and the reward
// is its agent's. OpenEnv's reset may also name the agent (a reset kwarg,
// which its GenericEnvClient passes through as it is).
import { describe, expect, inject, it } from "vitest";
import { connect, expectObservation } from "./helpers/openenv-client";

const baseUrl = inject("baseUrl");
const openenv = (env: string) => `${baseUrl}/v1/environments/${env}/openenv`;
const aviary = (env: string) => `${baseUrl}/v1/environments/${env}/aviary`;

/** OpenEnv's step frame of one `mark`, as Python's json.dumps writes it. */
const markFrame = (id: string, cell: number) =>
  `{"type": "step", "data": {"role": "assistant", "tool_calls": [{"id": "${id}", "type": "function", "function": {"name": "mark", "arguments": "{\\"cell\\": ${cell}}"}}]}}`;

const contents = (messages: unknown) =>
  (messages as { content: string }[]).map((m) => m.content).join("\n");

describe("a dialect's client playing one agent", () => {
  it("OpenEnv: x against the environment's o, o's reply in each step, x's win its reward", async () => {
    const env = await connect(openenv("tictactoe-bot"));
    const reset = expectObservation(
      await env.request('{"type": "reset", "data": {"task_index": 0}}')
    );
    // x's view only: o's own opening line is not x's.
    expect(contents(reset.observation.messages)).toContain("You are x");
    expect(contents(reset.observation.messages)).not.toContain("You are o");
    const first = expectObservation(await env.request(markFrame("c1", 5)));
    expect(contents(first.observation.messages)).toContain("o marked 1");
    expect(first.done).toBe(false);
    expectObservation(await env.request(markFrame("c2", 3)));
    const last = expectObservation(await env.request(markFrame("c3", 7)));
    expect(last).toMatchObject({ reward: 1, done: true });
    await env.close();
  });

  it("OpenEnv: reset names the agent; a step out of its turn is an error frame", async () => {
    const env = await connect(openenv("tictactoe"));
    const reset = expectObservation(
      await env.request('{"type": "reset", "data": {"agent": "o"}}')
    );
    expect(contents(reset.observation.messages)).toContain("You are o");
    expect(contents(reset.observation.messages)).not.toContain("You are x");
    const refused = await env.request(markFrame("c1", 5));
    expect(refused.type).toBe("error");
    expect(JSON.stringify(refused.data)).toContain("not_your_turn");
    const unknown = await env.request(
      '{"type": "reset", "data": {"agent": "z"}}'
    );
    expect(unknown.type).toBe("error");
    await env.close();
  });

  it("Aviary: x against the environment's o, x's view and x's reward", async () => {
    const post = (url: string, body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "*/*" },
        body: JSON.stringify(body)
      });
    const server = aviary("tictactoe-bot");
    const started = await post(`${server}/start`, { task_idx: 0 });
    const { env_id } = (await started.json()) as { env_id: string };
    const [messages] = (await (
      await post(`${server}/reset`, { env_id })
    ).json()) as [Record<string, unknown>[]];
    expect(contents(messages)).toContain("You are x");
    expect(contents(messages)).not.toContain("You are o");
    // ToolRequestMessage.model_dump(mode="json") of one mark.
    const mark = async (id: string, cell: number) =>
      (await (
        await post(`${server}/step`, {
          env_id,
          action: {
            role: "assistant",
            content: null,
            function_call: null,
            tool_calls: [
              {
                id,
                type: "function",
                function: { arguments: `{"cell": ${cell}}`, name: "mark" }
              }
            ]
          }
        })
      ).json()) as [Record<string, unknown>[], number, boolean, boolean];
    const [said, , done] = await mark("c1", 5);
    expect(contents(said)).toContain("o marked 1");
    expect(done).toBe(false);
    await mark("c2", 3);
    const [, reward, over, truncated] = await mark("c3", 7);
    expect([reward, over, truncated]).toEqual([1, true, false]);
  });
});
