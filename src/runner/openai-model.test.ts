import { describe, expect, it } from "vitest";
import {
  call,
  decisionJson,
  expectedDecision,
  options,
  request,
  textRequest
} from "./fixtures.case";
import { ModelError } from "./model-error";
import { openAIModel, openAIModelFromEnv } from "./openai-model";
import { decisionMessages, decisionSchema, textMessages } from "./prompt";

interface FetchCall {
  url: string;
  init: RequestInit;
  body: Record<string, unknown>;
}

/** A fetch answering from a script; an Error entry is a network failure. */

// The OpenAI-compatible adapter against a fake fetch: the request it sends and how it reads answers.
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
