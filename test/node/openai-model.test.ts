import { beforeEach, describe, expect, inject, it } from "vitest";
import { ModelError } from "../../src/runner/model-error";
import { openAIModel } from "../../src/runner/openai-model";
import { withRetries } from "../../src/runner/retry";
import { readOnlyStore } from "../../src/store/reader";
import { memoryStore } from "../../src/tree/fixtures.case";
import type {
  DecisionRequest,
  TextRequest,
  TreeData,
  TreeOption
} from "../../src/tree/types";
import {
  type CannedResponse,
  fakeOpenAIRequests,
  scriptFakeOpenAI
} from "./fake-openai";

// The OpenAI adapter over real HTTP against a scripted fake server: the
// request it sends, and how withRetries recovers from malformed output and
// server errors.

const server = inject("fakeOpenAIUrl");
const baseUrl = `${server}/v1`;

const treeData: TreeData = {
  userPrompt: "What is 6 times 7?",
  conversationHistory: [],
  atlas: {
    style: "Brief.",
    agentDescription: "A calculator.",
    endGoal: "Give the product."
  },
  environment: readOnlyStore(memoryStore()),
  environmentView: "{}",
  tasksCompleted: [],
  errors: {},
  pass: 1,
  recursionLimit: 5
};

const options: TreeOption[] = [
  {
    name: "multiply",
    kind: "tool",
    description: "Multiply two numbers.",
    inputs: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"]
    },
    end: true
  },
  {
    name: "text_response",
    kind: "text",
    description: "Answer directly.",
    end: true
  }
];

const request: DecisionRequest = {
  treeData,
  node: "root",
  instruction: "Choose how to answer.",
  options,
  unavailable: [],
  feedback: []
};

const textRequest: TextRequest = { treeData, reason: "limit" };
const call = { decisionIndex: 0 };

const decision = {
  reasoning: "Multiply them.",
  message_update: "Multiplying 6 by 7.",
  impossible: false,
  function_name: "multiply",
  function_inputs: { a: 6, b: 7 },
  end_actions: true
};

const toolCall = (args: string): CannedResponse => ({
  body: {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "decide", arguments: args }
            }
          ]
        }
      }
    ]
  }
});

const content = (text: string): CannedResponse => ({
  body: {
    choices: [
      {
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant", content: text }
      }
    ]
  }
});

const goodCall = toolCall(JSON.stringify(decision));
const malformedCall = toolCall('{"function_name": "multiply", "function_in');
const serverError: CannedResponse = {
  status: 500,
  body: { error: { message: "model crashed" } }
};

const model = (mode?: "tools" | "json") =>
  withRetries(
    openAIModel({
      baseUrl: `${baseUrl}/`,
      apiKey: "sk-fake",
      model: "fake-model",
      ...(mode ? { mode } : {})
    }),
    { attempts: 3, baseDelayMs: 1 }
  );

const expected = {
  tool: "multiply",
  inputs: { a: 6, b: 7 },
  end: true,
  message: "Multiplying 6 by 7.",
  impossible: false,
  reasoning: "Multiply them."
};

beforeEach(() => scriptFakeOpenAI(server, []));

describe("openAIModel against an OpenAI-compatible server", () => {
  it("posts a forced decide call with the options as an enum", async () => {
    await scriptFakeOpenAI(server, [goodCall]);
    await expect(model().decide(request, call)).resolves.toEqual(expected);
    const [sent, ...more] = await fakeOpenAIRequests(server);
    expect(more).toEqual([]);
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe("Bearer sk-fake");
    expect(sent?.headers["content-type"]).toBe("application/json");
    const body = sent?.body as {
      model: string;
      messages: { role: string; content: string }[];
      tools: {
        type: string;
        function: {
          name: string;
          parameters: {
            properties: Record<string, { enum?: string[] }>;
            required: string[];
          };
        };
      }[];
      tool_choice: unknown;
    };
    expect(body.model).toBe("fake-model");
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[1]?.content).toContain("What is 6 times 7?");
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0]?.type).toBe("function");
    expect(body.tools[0]?.function.name).toBe("decide");
    expect(
      body.tools[0]?.function.parameters.properties.function_name?.enum
    ).toEqual(["multiply", "text_response"]);
    expect(body.tools[0]?.function.parameters.required).toContain(
      "function_inputs"
    );
    expect(body.tool_choice).toEqual({
      type: "function",
      function: { name: "decide" }
    });
  });

  it("retries malformed arguments until a good call", async () => {
    await scriptFakeOpenAI(server, [malformedCall, goodCall]);
    await expect(model().decide(request, call)).resolves.toEqual(expected);
    expect(await fakeOpenAIRequests(server)).toHaveLength(2);
  });

  it("retries a 500 until a good call", async () => {
    await scriptFakeOpenAI(server, [serverError, goodCall]);
    await expect(model().decide(request, call)).resolves.toEqual(expected);
    expect(await fakeOpenAIRequests(server)).toHaveLength(2);
  });

  it("retries a body that is JSON but not a completion (null, a list)", async () => {
    await scriptFakeOpenAI(server, [{ text: "null" }, { body: [] }, goodCall]);
    await expect(model().decide(request, call)).resolves.toEqual(expected);
    expect(await fakeOpenAIRequests(server)).toHaveLength(3);
  });

  it("gives up with a ModelError after three 500s", async () => {
    await scriptFakeOpenAI(server, [serverError, serverError, serverError]);
    const error = await model()
      .decide(request, call)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(500);
    expect((error as ModelError).message).toContain("model crashed");
    expect(await fakeOpenAIRequests(server)).toHaveLength(3);
  });

  it("does not retry a 401", async () => {
    await scriptFakeOpenAI(server, [
      { status: 401, body: { error: { message: "invalid api key" } } },
      goodCall
    ]);
    const error = await model()
      .decide(request, call)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).retryable).toBe(false);
    expect((error as ModelError).message).toContain("invalid api key");
    expect(await fakeOpenAIRequests(server)).toHaveLength(1);
  });

  it("in json mode asks for a JSON object and reads the content", async () => {
    await scriptFakeOpenAI(server, [
      content(`\`\`\`json\n${JSON.stringify(decision)}\n\`\`\``)
    ]);
    await expect(model("json").decide(request, call)).resolves.toEqual(
      expected
    );
    const [sent] = await fakeOpenAIRequests(server);
    const body = sent?.body as Record<string, unknown>;
    expect(body.response_format).toEqual({ type: "json_object" });
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("tool_choice");
  });

  it("writes a text answer without tools", async () => {
    await scriptFakeOpenAI(server, [content("6 times 7 is 42.")]);
    await expect(model().respond(textRequest, call)).resolves.toBe(
      "6 times 7 is 42."
    );
    const [sent] = await fakeOpenAIRequests(server);
    const body = sent?.body as Record<string, unknown>;
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(body.model).toBe("fake-model");
    expect(body).not.toHaveProperty("tools");
    expect((body.messages as { role: string }[]).map((m) => m.role)).toEqual([
      "system",
      "user"
    ]);
  });
});
