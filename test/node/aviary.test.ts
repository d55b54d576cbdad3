// Aviary's dataset server over real HTTP, with exactly the requests ldp's
// TaskDatasetClient / TaskEnvironmentClient send (read from aviary's
// env_client.py and captured from it: httpx's compact JSON bodies, the
// action as ToolRequestMessage.model_dump(mode="json"), whose arguments are
// the string Python's json.dumps writes), and every field the client's
// pydantic adapters (MessagesAdapter, ToolsAdapter) then validate.
import { describe, expect, inject, it } from "vitest";

const baseUrl = inject("baseUrl");
const server = (env: string) => `${baseUrl}/v1/environments/${env}/aviary`;

/** As httpx posts `json=`: compact separators, Content-Type set, nothing else Roost-specific. */
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "*/*" },
    body: JSON.stringify(body)
  });

const ROLES = ["user", "system", "tool", "assistant", "function"];

/** What aviary's MessagesAdapter needs to read a message as the type it is. */
const expectAviaryMessage = (m: Record<string, unknown>) => {
  expect(ROLES).toContain(m.role);
  expect(m.info === null || typeof m.info === "object").toBe(true);
  if (m.role === "tool") {
    // Without these a tool message degrades to a plain Message in Aviary.
    expect(typeof m.content).toBe("string");
    expect(typeof m.name).toBe("string");
    expect(typeof m.tool_call_id).toBe("string");
  } else {
    expect(m.content === null || typeof m.content === "string").toBe(true);
  }
};

/** What aviary's ToolsAdapter needs: FunctionInfo with parameters (properties and required present). */
const expectAviaryTool = (t: {
  type: unknown;
  function: {
    name: unknown;
    description: unknown;
    parameters: Record<string, unknown>;
  };
}) => {
  expect(t.type).toBe("function");
  expect(typeof t.function.name).toBe("string");
  expect(typeof t.function.description).toBe("string");
  expect(t.function.parameters.type).toBe("object");
  expect(typeof t.function.parameters.properties).toBe("object");
  expect(Array.isArray(t.function.parameters.required)).toBe(true);
};

/** `ToolRequestMessage.model_dump(mode="json")` of one call, as captured on the wire. */
const toolRequest = (id: string, name: string, argumentsJson: string) => ({
  role: "assistant",
  content: null,
  function_call: null,
  tool_calls: [
    {
      id,
      type: "function",
      function: { arguments: argumentsJson, name }
    }
  ]
});

/** One step calling `calculator` and then `submit_answer` with the answer as text. */
const step2 = async (envId: string) =>
  (await (
    await post(`${server("calculator")}/step`, {
      env_id: envId,
      action: {
        ...toolRequest("c2", "calculator", '{"expression": "6 * 7"}'),
        tool_calls: [
          ...toolRequest("c2", "calculator", '{"expression": "6 * 7"}')
            .tool_calls,
          ...toolRequest("c3", "submit_answer", '{"answer": "42"}').tool_calls
        ]
      }
    })
  ).json()) as [Record<string, unknown>[], number, boolean, boolean];

const start = async (env: string, taskIdx: number | null) => {
  const res = await post(`${server(env)}/start`, { task_idx: taskIdx });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { env_id: unknown };
  // TaskEnvClientState.env_id is a str: an int fails validation.
  expect(typeof body.env_id).toBe("string");
  return body.env_id as string;
};

describe("Aviary's TaskDatasetClient against Roost", () => {
  it("GET /info: dataset_size as an int, or null without a dataset", async () => {
    const calculator = await fetch(`${server("calculator")}/info`);
    expect(calculator.status).toBe(200);
    const info = (await calculator.json()) as Record<string, unknown>;
    expect(Number.isInteger(info.dataset_size)).toBe(true);
    expect(info.dataset_size).toBeGreaterThan(0);
    expect(info.running_env_ids).toEqual([]);
    const story = await (await fetch(`${server("story")}/info`)).json();
    expect(story).toMatchObject({ dataset_size: null });
  });

  it("start → reset → step → close: one episode, as TaskEnvironmentClient runs it", async () => {
    const envId = await start("story", null);
    const reset = await post(`${server("story")}/reset`, { env_id: envId });
    expect(reset.status).toBe(200);
    const pair = (await reset.json()) as [
      Record<string, unknown>[],
      Parameters<typeof expectAviaryTool>[0][]
    ];
    expect(pair).toHaveLength(2);
    const [messages, tools] = pair;
    expect(messages.length).toBeGreaterThan(0);
    messages.forEach(expectAviaryMessage);
    tools.forEach(expectAviaryTool);
    expect(tools.map((t) => t.function.name)).toContain("print_story");

    const step = await post(`${server("story")}/step`, {
      env_id: envId,
      action: toolRequest(
        "call_abc12",
        "print_story",
        '{"story": "One two three four five"}'
      )
    });
    expect(step.status).toBe(200);
    const quad = (await step.json()) as [
      Record<string, unknown>[],
      unknown,
      unknown,
      unknown
    ];
    expect(quad).toHaveLength(4);
    const [observations, reward, done, truncated] = quad;
    observations.forEach(expectAviaryMessage);
    expect(observations[0]).toMatchObject({
      role: "tool",
      name: "print_story",
      tool_call_id: "call_abc12",
      info: null
    });
    expect(reward).toBe(1);
    expect(done).toBe(true);
    expect(truncated).toBe(false);

    const close = await post(`${server("story")}/close`, { env_id: envId });
    expect(close.status).toBe(200);
    expect(await close.json()).toEqual({ env_id: envId });
    // Closed is gone: Aviary's server answers 404 too, and the client raises.
    const again = await post(`${server("story")}/close`, { env_id: envId });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({
      detail: expect.stringContaining("not found")
    });
  });

  it("starts task_idx i on the dataset's task i, every time", async () => {
    const question = async (idx: number) => {
      const envId = await start("calculator", idx);
      const [messages] = (await (
        await post(`${server("calculator")}/reset`, { env_id: envId })
      ).json()) as [{ content: string }[]];
      await post(`${server("calculator")}/close`, { env_id: envId });
      return messages.map((m) => m.content).join("\n");
    };
    const first = await question(3);
    expect(await question(3)).toBe(first);
    expect(await question(4)).not.toBe(first);
  });

  it("is a Roost session underneath: env_id carries its id and token", async () => {
    const envId = await start("counter", null);
    await post(`${server("counter")}/reset`, { env_id: envId });
    await post(`${server("counter")}/step`, {
      env_id: envId,
      action: toolRequest("a1", "incr", "{}")
    });
    const [sessionId, token] = [
      envId.slice(0, envId.indexOf(".")),
      envId.slice(envId.indexOf(".") + 1)
    ];
    const status = await fetch(`${baseUrl}/v1/sessions/${sessionId}`, {
      headers: { Authorization: `Bearer ${token}` }
    });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({
      environment: "counter",
      episode: 1,
      steps: 1
    });
    await post(`${server("counter")}/close`, { env_id: envId });
  });

  it("carries on after the session's object is aborted mid-episode", async () => {
    const envId = await start("counter", null);
    await post(`${server("counter")}/reset`, { env_id: envId });
    const incr = (id: string) =>
      post(`${server("counter")}/step`, {
        env_id: envId,
        action: toolRequest(id, "incr", "{}")
      });
    await incr("a1");
    const sessionId = envId.slice(0, envId.indexOf("."));
    const aborted = await fetch(
      `${baseUrl}/__e2e/sessions/${sessionId}/abort`,
      {
        method: "POST"
      }
    );
    expect(aborted.status).toBe(204);
    const [[message]] = (await (await incr("a2")).json()) as [
      { content: string }[]
    ];
    expect(message!.content).toBe("counter=2");
    await post(`${server("counter")}/close`, { env_id: envId });
  });

  it("answers what Aviary's client may send besides a clean tool call", async () => {
    const envId = await start("counter", null);
    await post(`${server("counter")}/reset`, { env_id: envId });
    const step = async (action: unknown) =>
      (await (
        await post(`${server("counter")}/step`, { env_id: envId, action })
      ).json()) as [Record<string, unknown>[], number, boolean, boolean];

    // Arguments that did not parse on the client arrive as name "INVALID".
    const [[invalid]] = await step(toolRequest("x1", "INVALID", "{}"));
    expect(invalid).toMatchObject({
      role: "tool",
      name: "INVALID",
      tool_call_id: "x1",
      info: { is_error: true }
    });
    expectAviaryMessage(invalid!);

    // Any other Message calls no tool: Aviary's and Roost's same answer.
    const [messages, reward, done] = await step({
      role: "user",
      content: "hello"
    });
    expect(messages).toEqual([
      {
        role: "user",
        content:
          "No tool calls received. Please call one or more tools to proceed.",
        info: null
      }
    ]);
    expect([reward, done]).toEqual([0, false]);
    await post(`${server("counter")}/close`, { env_id: envId });
  });

  it("carries a rubric's components in the last message's info, the list still four long", async () => {
    // Roost's task through task_kwargs, as TaskDatasetServer's get_new_env_by_args takes it.
    const res = await post(`${server("calculator")}/start`, {
      task_kwargs: { question: "What is 6 * 7?", answer: 42 }
    });
    const { env_id: envId } = (await res.json()) as { env_id: string };
    const [resetMessages] = (await (
      await post(`${server("calculator")}/reset`, { env_id: envId })
    ).json()) as [Record<string, unknown>[]];
    // A reset scores nothing.
    for (const m of resetMessages) expect(m.info).toBeNull();
    const step = async (id: string, name: string, args: string) => {
      const answer = (await (
        await post(`${server("calculator")}/step`, {
          env_id: envId,
          action: toolRequest(id, name, args)
        })
      ).json()) as unknown[];
      // `messages, reward, done, truncated = response.json()`: a fifth element would raise.
      expect(answer).toHaveLength(4);
      return answer as [Record<string, unknown>[], number, boolean, boolean];
    };
    const [worked, workedReward] = await step(
      "c1",
      "calculator",
      '{"expression": "6 * 7"}'
    );
    worked.forEach(expectAviaryMessage);
    expect(workedReward).toBe(0);
    expect(worked.at(-1)!.info).toEqual({
      reward_components: { exact: 0, format: 0 }
    });
    // Two calls in one step: only the last message carries the step's components.
    const [both, reward, done] = await step2(envId);
    both.forEach(expectAviaryMessage);
    expect(both.map((m) => m.tool_call_id)).toEqual(["c2", "c3"]);
    expect(both[0]!.info).toBeNull();
    // Right, but sent as text: `format` is a metric (weight 0), not added.
    expect(both[1]!.info).toEqual({
      reward_components: { exact: 1, format: 0 }
    });
    expect([reward, done]).toEqual([1, true]);
    await post(`${server("calculator")}/close`, { env_id: envId });
  });

  it("keeps a failed tool's is_error beside the components, and adds nothing without rubrics", async () => {
    const start1 = await post(`${server("calculator")}/start`, {
      task_kwargs: { question: "What is 1 + 1?", answer: 2 }
    });
    const { env_id: envId } = (await start1.json()) as { env_id: string };
    await post(`${server("calculator")}/reset`, { env_id: envId });
    const [[failed]] = (await (
      await post(`${server("calculator")}/step`, {
        env_id: envId,
        action: toolRequest("f1", "calculator", '{"expression": "1 +"}')
      })
    ).json()) as [Record<string, unknown>[]];
    expect(failed).toMatchObject({
      role: "tool",
      info: { is_error: true, reward_components: { exact: 0, format: 0 } }
    });
    await post(`${server("calculator")}/close`, { env_id: envId });

    const counter = await start("counter", null);
    await post(`${server("counter")}/reset`, { env_id: counter });
    const [[incr]] = (await (
      await post(`${server("counter")}/step`, {
        env_id: counter,
        action: toolRequest("a1", "incr", "{}")
      })
    ).json()) as [Record<string, unknown>[]];
    expect(incr!.info).toBeNull();
    await post(`${server("counter")}/close`, { env_id: counter });
  });

  it("refuses bad bodies and unknown environments in JSON, never with a 500", async () => {
    const cases: [string, unknown, number][] = [
      ["/start", { task_idx: -1 }, 400],
      ["/start", { task_idx: 1, task_kwargs: { a: 1 } }, 400],
      ["/start", { task_idx: 99_999_999 }, 400],
      ["/reset", {}, 400],
      ["/reset", { env_id: "nope" }, 404],
      ["/reset", { env_id: `${"0".repeat(64)}.v1.k.sig` }, 404],
      ["/step", { env_id: "nope", action: {} }, 404],
      ["/close_old_envs", { last_used: -5 }, 400]
    ];
    for (const [path, body, status] of cases) {
      const res = await post(`${server("calculator")}${path}`, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      const answer = (await res.json()) as Record<string, unknown>;
      expect(typeof answer.detail).toBe("string");
    }
    const flush = await post(`${server("calculator")}/close_old_envs`, {
      last_used: 0
    });
    expect(await flush.json()).toEqual({ closed_env_ids: [] });
    expect((await fetch(`${server("nope")}/info`)).status).toBe(404);
  });
});
