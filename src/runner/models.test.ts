import { describe, expect, it } from "vitest";
import type {
  Decision,
  DecisionModel,
  DecisionRequest,
  TextRequest,
  TreeData,
  TreeOption
} from "../tree/types";
import { ModelError } from "./model-error";
import { openAIModel, openAIModelFromEnv } from "./openai-model";
import {
  decisionMessages,
  decisionSchema,
  parseDecision,
  textMessages
} from "./prompt";
import { backoffDelay, withRetries } from "./retry";
import {
  type AiBindingLike,
  workersAIModel,
  workersAIModelFromEnv
} from "./workers-ai-model";

// The model adapters without a network: what the prompt says, how decisions
// are read back, which failures are retried, and the request each adapter
// sends.

const treeData = (over: Partial<TreeData> = {}): TreeData => ({
  userPrompt: "How many papers mention otters?",
  conversationHistory: [
    { role: "user", content: "Hi there" },
    { role: "assistant", content: "Hello! Ask me about papers." }
  ],
  atlas: {
    style: "Plain and brief.",
    agentDescription: "A librarian for a paper archive.",
    endGoal: "Answer with counts from the archive."
  },
  environment: '{"search":{"papers":[{"title":"Otters"}]}}',
  tasksCompleted: [
    {
      prompt: "How many papers mention otters?",
      tasks: [{ task: "search", pass: 1, kind: "tool", output: "1 paper" }]
    }
  ],
  errors: { count: ["Collection not found: pappers"] },
  pass: 2,
  recursionLimit: 5,
  ...over
});

const options: TreeOption[] = [
  {
    name: "count",
    kind: "tool",
    description: "Count objects in a collection.",
    inputs: {
      type: "object",
      properties: { collection: { type: "string" } },
      required: ["collection"]
    },
    end: true
  },
  {
    name: "search_tools",
    kind: "branch",
    description: "Search the archive.",
    end: false
  },
  {
    name: "text_response",
    kind: "text",
    description: "Answer the user directly.",
    inputs: { type: "object", properties: {} },
    end: true
  }
];

const request = (over: Partial<DecisionRequest> = {}): DecisionRequest => ({
  treeData: treeData(),
  node: "root",
  instruction: "Pick a tool that answers the question.",
  options,
  unavailable: [
    {
      name: "summarise",
      description: "Summarise results.",
      reason: "Only after a search has results."
    }
  ],
  feedback: [],
  ...over
});

const textRequest: TextRequest = { treeData: treeData(), reason: "limit" };

const decisionJson = {
  reasoning: "Count the otter papers.",
  message_update: "Counting the papers now.",
  impossible: false,
  function_name: "count",
  function_inputs: { collection: "papers" },
  end_actions: true
};

const expectedDecision: Decision = {
  tool: "count",
  inputs: { collection: "papers" },
  end: true,
  message: "Counting the papers now.",
  impossible: false,
  reasoning: "Count the otter papers."
};

const call = { decisionIndex: 0 };

const sectionOf = (text: string, tag: string) =>
  new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1];

describe("decisionMessages", () => {
  const [system, user] = decisionMessages(request());

  it("puts the atlas in the system message and tree data in tagged user sections", () => {
    expect(system?.role).toBe("system");
    expect(user?.role).toBe("user");
    expect(sectionOf(system!.content, "atlas")).toContain(
      "A librarian for a paper archive."
    );
    const u = user!.content;
    expect(sectionOf(u, "user_prompt")).toBe("How many papers mention otters?");
    expect(sectionOf(u, "conversation_history")).toBe(
      "user: Hi there\n\nassistant: Hello! Ask me about papers."
    );
    expect(sectionOf(u, "environment")).toContain('"title":"Otters"');
    expect(sectionOf(u, "tasks_completed")).toContain("search");
    expect(sectionOf(u, "errors")).toContain("Collection not found: pappers");
    expect(sectionOf(u, "tree_count")).toContain("2/5");
    expect(sectionOf(u, "node")).toBe("root");
    expect(sectionOf(u, "instruction")).toBe(
      "Pick a tool that answers the question."
    );
    expect(sectionOf(u, "feedback")).toBe("None.");
  });

  it("lists available options with their input schemas and unavailable ones with reasons", () => {
    const available = JSON.parse(
      sectionOf(user!.content, "available_options")!
    );
    expect(
      available.map((o: { function_name: string }) => o.function_name)
    ).toEqual(["count", "search_tools", "text_response"]);
    expect(available[0].inputs).toEqual(options[0]!.inputs);
    expect(available[1].inputs).toBe("No inputs are needed for this function.");
    expect(available[2].inputs).toBe("No inputs are needed for this function.");
    const unavailable = JSON.parse(
      sectionOf(user!.content, "unavailable_options")!
    );
    expect(unavailable).toEqual([
      {
        function_name: "summarise",
        description: "Summarise results.",
        available_when: "Only after a search has results."
      }
    ]);
  });

  it("carries feedback from earlier attempts", () => {
    const [, u] = decisionMessages(
      request({ feedback: ['"sumarise" is not an option here.'] })
    );
    expect(sectionOf(u!.content, "feedback")).toBe(
      '- "sumarise" is not an option here.'
    );
  });

  it("writes the schema into the prompt only when the reply is bare JSON", () => {
    const [jsonSystem] = decisionMessages(request(), "json");
    const [toolSystem] = decisionMessages(request(), "tool");
    expect(jsonSystem!.content).toContain('"function_name"');
    expect(toolSystem!.content).not.toContain('"function_name"');
    expect(toolSystem!.content).toContain("decide");
  });

  it("says None. for empty sections", () => {
    const [, u] = decisionMessages(
      request({
        treeData: treeData({
          conversationHistory: [],
          tasksCompleted: [],
          errors: {},
          environment: ""
        }),
        unavailable: []
      })
    );
    for (const tag of [
      "conversation_history",
      "tasks_completed",
      "errors",
      "environment",
      "unavailable_options"
    ]) {
      expect(sectionOf(u!.content, tag)).toBe("None.");
    }
  });
});

describe("textMessages", () => {
  it("asks for a final answer from the tree data, saying why", () => {
    const [system, user] = textMessages(textRequest);
    expect(system?.role).toBe("system");
    expect(sectionOf(system!.content, "atlas")).toContain("Plain and brief.");
    expect(sectionOf(user!.content, "user_prompt")).toBe(
      "How many papers mention otters?"
    );
    expect(sectionOf(user!.content, "environment")).toContain("Otters");
    expect(sectionOf(user!.content, "instruction")).toContain("limit");
    const [, ended] = textMessages({ ...textRequest, reason: "ended" });
    expect(sectionOf(ended!.content, "instruction")).toContain("ended");
  });
});

describe("decisionSchema", () => {
  it("has Elysia's six fields with the option names as an enum", () => {
    const schema = decisionSchema(options) as {
      properties: Record<string, { type: string; enum?: string[] }>;
      required: string[];
    };
    expect(Object.keys(schema.properties)).toEqual([
      "reasoning",
      "message_update",
      "impossible",
      "function_name",
      "function_inputs",
      "end_actions"
    ]);
    expect(schema.required).toEqual(Object.keys(schema.properties));
    expect(schema.properties.function_name?.enum).toEqual([
      "count",
      "search_tools",
      "text_response"
    ]);
    expect(schema.properties.function_inputs?.type).toBe("object");
    expect(schema.properties.end_actions?.type).toBe("boolean");
  });
});

describe("parseDecision", () => {
  it("reads JSON text, fenced JSON and objects", () => {
    expect(parseDecision(JSON.stringify(decisionJson), options)).toEqual(
      expectedDecision
    );
    expect(
      parseDecision(
        `\`\`\`json\n${JSON.stringify(decisionJson)}\n\`\`\``,
        options
      )
    ).toEqual(expectedDecision);
    expect(parseDecision(decisionJson, options)).toEqual(expectedDecision);
    expect(
      parseDecision(
        `<think>hmm {x}</think>Here you go: ${JSON.stringify(decisionJson)} done`,
        options
      )
    ).toEqual(expectedDecision);
  });

  it("strips quotes and backticks around function_name", () => {
    for (const name of ['"count"', "`count`", "'count'", " ``count`` "]) {
      expect(
        parseDecision({ ...decisionJson, function_name: name }, options).tool
      ).toBe("count");
    }
  });

  it("returns an unknown function_name as it is, for the tree to re-ask", () => {
    expect(
      parseDecision({ ...decisionJson, function_name: "sumarise" }, options)
        .tool
    ).toBe("sumarise");
    expect(
      parseDecision({ ...decisionJson, function_name: "Count" }, options).tool
    ).toBe("count");
  });

  it("accepts quoted booleans, string inputs and missing optional fields", () => {
    expect(
      parseDecision(
        {
          function_name: "count",
          function_inputs: '{"collection":"papers"}',
          end_actions: "true",
          impossible: "false"
        },
        options
      )
    ).toEqual({
      tool: "count",
      inputs: { collection: "papers" },
      end: true,
      message: "",
      impossible: false
    });
    expect(
      parseDecision(
        { function_name: "search_tools", function_inputs: null },
        options
      ).inputs
    ).toEqual({});
  });

  it("throws a retryable ModelError for invalid JSON or shape", () => {
    for (const raw of [
      "not json at all",
      '{"function_name": ',
      { message_update: "no name" },
      { ...decisionJson, function_inputs: [1, 2] },
      { ...decisionJson, end_actions: "maybe" },
      42
    ]) {
      let caught: unknown;
      try {
        parseDecision(raw, options);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ModelError);
      expect((caught as ModelError).retryable).toBe(true);
    }
  });
});

/** A model whose decide() fails from a script before it succeeds. */
const flaky = (failures: unknown[]) => {
  let calls = 0;
  const model: DecisionModel = {
    name: "flaky",
    async decide() {
      calls++;
      const next = failures.shift();
      if (next !== undefined) throw next;
      return expectedDecision;
    },
    async respond() {
      calls++;
      const next = failures.shift();
      if (next !== undefined) throw next;
      return "done";
    }
  };
  return { model, calls: () => calls };
};

const recordSleeps = () => {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms) };
};

describe("withRetries", () => {
  it("retries retryable errors with exponential backoff", async () => {
    const { model, calls } = flaky([
      new ModelError("overloaded", true, 503),
      new ModelError("bad output", true),
      new ModelError("timeout", true)
    ]);
    const { sleeps, sleep } = recordSleeps();
    const retried = withRetries(model, {
      attempts: 4,
      baseDelayMs: 100,
      sleep
    });
    expect(retried.name).toBe("flaky");
    await expect(retried.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    expect(calls()).toBe(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it("caps the wait and scales it by injected jitter", () => {
    expect(backoffDelay(5, { baseDelayMs: 100, maxDelayMs: 500 })).toBe(500);
    expect(backoffDelay(2, { baseDelayMs: 100, random: () => 0 })).toBe(100);
    expect(backoffDelay(2, { baseDelayMs: 100, random: () => 0.5 })).toBe(150);
  });

  it("gives up after the last attempt with the last error", async () => {
    const last = new ModelError("still down", true, 500);
    const { model, calls } = flaky([
      new ModelError("down", true, 500),
      new ModelError("down", true, 500),
      last
    ]);
    const { sleeps, sleep } = recordSleeps();
    await expect(
      withRetries(model, { sleep }).respond(textRequest, call)
    ).rejects.toBe(last);
    expect(calls()).toBe(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it("does not retry non-retryable ModelErrors or other errors", async () => {
    for (const error of [
      new ModelError("bad key", false, 401),
      new TypeError("bug")
    ]) {
      const { model, calls } = flaky([error]);
      const { sleeps, sleep } = recordSleeps();
      await expect(
        withRetries(model, { sleep }).decide(request(), call)
      ).rejects.toBe(error);
      expect(calls()).toBe(1);
      expect(sleeps).toEqual([]);
    }
  });

  it("times out a hanging call, aborts its signal and retries it", async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const model: DecisionModel = {
      name: "slow",
      decide(_request, options) {
        calls++;
        if (options.signal) signals.push(options.signal);
        // The first call never settles, as if the model ignored its signal.
        return calls === 1
          ? new Promise<Decision>(() => {})
          : Promise.resolve(expectedDecision);
      },
      respond: async () => ""
    };
    const { sleep } = recordSleeps();
    await expect(
      withRetries(model, { timeoutMs: 20, sleep }).decide(request(), call)
    ).resolves.toEqual(expectedDecision);
    expect(calls).toBe(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
  });

  it("stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const model: DecisionModel = {
      name: "hang",
      decide: () => new Promise<Decision>(() => {}),
      respond: async () => ""
    };
    const pending = withRetries(model).decide(request(), {
      decisionIndex: 0,
      signal: controller.signal
    });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

/** A Workers AI binding that answers from a script and records its inputs. */
const fakeAi = (answers: (unknown | Error)[]) => {
  const runs: { model: string; inputs: Record<string, unknown> }[] = [];
  const binding: AiBindingLike = {
    async run(model, inputs) {
      runs.push({ model, inputs });
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next;
    }
  };
  return { binding, runs };
};

describe("workersAIModel", () => {
  it("sends the messages with the decision schema as JSON mode", async () => {
    const { binding, runs } = fakeAi([
      { response: JSON.stringify(decisionJson) }
    ]);
    const model = workersAIModel({ binding, model: "@cf/test/model" });
    expect(model.name).toBe("workers-ai:@cf/test/model");
    await expect(model.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]?.model).toBe("@cf/test/model");
    expect(runs[0]?.inputs).toEqual({
      messages: decisionMessages(request(), "json"),
      response_format: {
        type: "json_schema",
        json_schema: decisionSchema(options)
      }
    });
  });

  it("reads a response JSON mode already parsed into an object", async () => {
    const { binding } = fakeAi([{ response: decisionJson }]);
    await expect(
      workersAIModel({ binding, model: "m" }).decide(request(), call)
    ).resolves.toEqual(expectedDecision);
  });

  it("answers text with messages only", async () => {
    const { binding, runs } = fakeAi([{ response: "There is one paper." }]);
    await expect(
      workersAIModel({ binding, model: "m" }).respond(textRequest, call)
    ).resolves.toBe("There is one paper.");
    expect(runs[0]?.inputs).toEqual({ messages: textMessages(textRequest) });
  });

  it("turns binding errors and empty answers into retryable ModelErrors", async () => {
    const { binding, runs } = fakeAi([
      new Error("3040: capacity exceeded"),
      { response: decisionJson }
    ]);
    const { sleeps, sleep } = recordSleeps();
    const model = withRetries(workersAIModel({ binding, model: "m" }), {
      sleep
    });
    await expect(model.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    expect(runs).toHaveLength(2);
    expect(sleeps).toEqual([250]);

    const down = fakeAi([new Error("a"), new Error("b"), new Error("c")]);
    const failing = withRetries(
      workersAIModel({ binding: down.binding, model: "m" }),
      { sleep }
    );
    const error = await failing.decide(request(), call).catch((e) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("c");
    expect(down.runs).toHaveLength(3);

    const empty = fakeAi([{ response: "" }]);
    const e2 = await workersAIModel({ binding: empty.binding, model: "m" })
      .respond(textRequest, call)
      .catch((e) => e);
    expect(e2).toBeInstanceOf(ModelError);
  });

  it("is opt-in from the environment", () => {
    const { binding } = fakeAi([]);
    expect(workersAIModelFromEnv({ AI: binding })).toBeUndefined();
    expect(
      workersAIModelFromEnv({ AI: binding, ROOST_WORKERS_AI_MODEL: "@cf/x" })
        ?.name
    ).toBe("workers-ai:@cf/x");
    expect(() =>
      workersAIModelFromEnv({ ROOST_WORKERS_AI_MODEL: "@cf/x" })
    ).toThrow(/AI binding/);
  });
});

interface FetchCall {
  url: string;
  init: RequestInit;
  body: Record<string, unknown>;
}

/** A fetch answering from a script; an Error entry is a network failure. */
const fakeFetch = (answers: (Response | Error)[]) => {
  const calls: FetchCall[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({
      url: String(input),
      init: init ?? {},
      body: JSON.parse(String(init?.body))
    });
    const next = answers.shift();
    if (!next) throw new Error("fetch called more often than scripted");
    if (next instanceof Error) throw next;
    return next;
  }) as typeof globalThis.fetch;
  return { fetch, calls };
};

const completion = (message: Record<string, unknown>) =>
  Response.json({ choices: [{ index: 0, message }] });

describe("openAIModel", () => {
  it("forces a decide tool call and reads its arguments", async () => {
    const { fetch, calls } = fakeFetch([
      completion({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: {
              name: "decide",
              arguments: JSON.stringify(decisionJson)
            }
          }
        ]
      })
    ]);
    const signal = new AbortController().signal;
    const model = openAIModel({
      baseUrl: "http://models.test/v1/",
      apiKey: "sk-test",
      model: "qwen",
      temperature: 0,
      headers: { "x-extra": "1" },
      fetch
    });
    expect(model.name).toBe("openai:qwen");
    await expect(
      model.decide(request(), { decisionIndex: 0, signal })
    ).resolves.toEqual(expectedDecision);
    const [c] = calls;
    expect(c?.url).toBe("http://models.test/v1/chat/completions");
    expect(c?.init.method).toBe("POST");
    expect(c?.init.signal).toBe(signal);
    expect(c?.init.headers).toMatchObject({
      authorization: "Bearer sk-test",
      "content-type": "application/json",
      "x-extra": "1"
    });
    expect(c?.body).toEqual({
      model: "qwen",
      temperature: 0,
      messages: decisionMessages(request(), "tool"),
      tools: [
        {
          type: "function",
          function: {
            name: "decide",
            description: expect.any(String),
            parameters: decisionSchema(options)
          }
        }
      ],
      tool_choice: { type: "function", function: { name: "decide" } }
    });
  });

  it("takes object arguments, and JSON content when no tool was called", async () => {
    const { fetch } = fakeFetch([
      completion({
        tool_calls: [{ function: { name: "decide", arguments: decisionJson } }]
      }),
      completion({ content: JSON.stringify(decisionJson) })
    ]);
    const model = openAIModel({ baseUrl: "http://m/v1", model: "x", fetch });
    await expect(model.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    await expect(model.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
  });

  it("in json mode asks for a JSON object and reads fenced content", async () => {
    const { fetch, calls } = fakeFetch([
      completion({
        content: `\`\`\`json\n${JSON.stringify(decisionJson)}\n\`\`\``
      })
    ]);
    const model = openAIModel({
      baseUrl: "http://m/v1",
      model: "x",
      mode: "json",
      fetch
    });
    await expect(model.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    expect(calls[0]?.body).toEqual({
      model: "x",
      messages: decisionMessages(request(), "json"),
      response_format: { type: "json_object" }
    });
    expect(calls[0]?.init.headers).not.toHaveProperty("authorization");
  });

  it("responds with plain messages and the content", async () => {
    const { fetch, calls } = fakeFetch([
      completion({ content: "One paper mentions otters." }),
      completion({ content: "  " })
    ]);
    const model = openAIModel({ baseUrl: "http://m/v1", model: "x", fetch });
    await expect(model.respond(textRequest, call)).resolves.toBe(
      "One paper mentions otters."
    );
    expect(calls[0]?.body).toEqual({
      model: "x",
      messages: textMessages(textRequest)
    });
    const empty = await model.respond(textRequest, call).catch((e) => e);
    expect(empty).toBeInstanceOf(ModelError);
    expect(empty.retryable).toBe(true);
  });

  it("maps HTTP and network failures to ModelErrors", async () => {
    const cases: [Response | Error, boolean, number | undefined][] = [
      [
        Response.json({ error: { message: "overloaded" } }, { status: 503 }),
        true,
        503
      ],
      [Response.json({ error: "slow down" }, { status: 429 }), true, 429],
      [new Response("timeout", { status: 408 }), true, 408],
      [
        Response.json({ error: { message: "bad key" } }, { status: 401 }),
        false,
        401
      ],
      [
        Response.json({ message: "no such model" }, { status: 404 }),
        false,
        404
      ],
      [new Response("<html>", { status: 200 }), true, 200],
      [Response.json({ choices: [] }), true, 200],
      [new TypeError("fetch failed"), true, undefined]
    ];
    for (const [answer, retryable, status] of cases) {
      const { fetch } = fakeFetch([answer]);
      const error = await openAIModel({
        baseUrl: "http://m/v1",
        model: "x",
        fetch
      })
        .decide(request(), call)
        .catch((e) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect(error.retryable).toBe(retryable);
      expect(error.status).toBe(status);
    }
    const { fetch } = fakeFetch([
      Response.json({ error: { message: "bad key" } }, { status: 401 })
    ]);
    await expect(
      openAIModel({ baseUrl: "http://m/v1", model: "x", fetch }).decide(
        request(),
        call
      )
    ).rejects.toThrow("401: bad key");
  });

  it("reads its configuration from the environment", () => {
    expect(openAIModelFromEnv({})).toBeUndefined();
    expect(
      openAIModelFromEnv({ ROOST_MODEL_BASE_URL: "http://m/v1" })
    ).toBeUndefined();
    expect(openAIModelFromEnv({ ROOST_MODEL: "qwen" })).toBeUndefined();
    expect(
      openAIModelFromEnv({
        ROOST_MODEL_BASE_URL: "http://m/v1",
        ROOST_MODEL: "qwen"
      })?.name
    ).toBe("openai:qwen");
    expect(() =>
      openAIModelFromEnv({
        ROOST_MODEL_BASE_URL: "http://m/v1",
        ROOST_MODEL: "qwen",
        ROOST_MODEL_MODE: "xml"
      })
    ).toThrow(/ROOST_MODEL_MODE/);
  });
});
