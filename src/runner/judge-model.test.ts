import { describe, expect, it } from "vitest";
import { judgeModel } from "./judge-model";
import { openAIModel } from "./openai-model";

const SECRET_URL = "http://judge.internal.example:8443/v1";

const limits = { attempts: 2, timeoutMs: 5_000 };

describe("judgeModel", () => {
  it("reports an unreachable server without its address, after its tries", async () => {
    let calls = 0;
    const model = openAIModel({
      baseUrl: SECRET_URL,
      model: "m",
      fetch: async () => {
        calls++;
        throw new TypeError(`connect ECONNREFUSED ${SECRET_URL}`);
      }
    });
    const error = await judgeModel(model, limits)
      .ask([{ role: "user", content: "Grade." }], () => {})
      .catch((e: Error) => e);
    expect(calls).toBe(2);
    expect((error as Error).message).toBe(
      "the judge's model openai:m could not be reached"
    );
  });

  it("says a model of the deployment's own that throws a plain error could not be reached, naming nothing it said", async () => {
    let calls = 0;
    const own = {
      name: "own",
      decide: () => Promise.reject(new Error("unused")),
      respond: () => Promise.reject(new Error("unused")),
      chat: async () => {
        calls++;
        throw new TypeError(`fetch failed: ${SECRET_URL}`);
      }
    };
    const error = await judgeModel(own, limits)
      .ask([{ role: "user", content: "Grade." }], () => {})
      .catch((e: Error) => e);
    expect(calls).toBe(2);
    expect((error as Error).message).toBe(
      "the judge's model own could not be reached"
    );
  });

  it("asks again when its check refuses the answer, and sends the messages as they are", async () => {
    const answers = ["not yet", '{"score": 1}'];
    const bodies: unknown[] = [];
    const model = openAIModel({
      baseUrl: SECRET_URL,
      model: "m",
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return Response.json({
          choices: [{ message: { content: answers.shift() } }]
        });
      }
    });
    const messages = [{ role: "user" as const, content: "Grade." }];
    const text = await judgeModel(model, limits).ask(messages, (t) => {
      if (!t.startsWith("{")) throw new Error("no JSON");
    });
    expect(text).toBe('{"score": 1}');
    expect(bodies).toEqual([
      { model: "m", messages },
      { model: "m", messages }
    ]);
  });

  it("reports a refused key by its status only, and does not ask again", async () => {
    let calls = 0;
    const model = openAIModel({
      baseUrl: SECRET_URL,
      model: "m",
      apiKey: "sk-live-abcd",
      fetch: async () => {
        calls++;
        return Response.json(
          { error: { message: "Incorrect API key provided: sk-l****abcd" } },
          { status: 401 }
        );
      }
    });
    const error = await judgeModel(model, limits)
      .ask([{ role: "user", content: "Grade." }], () => {})
      .catch((e: Error) => e);
    expect(calls).toBe(1);
    expect((error as Error).message).toBe(
      "the judge's model openai:m refused the deployment's credentials (401)"
    );
  });

  it("refuses a model that cannot chat", () => {
    const model = {
      name: "d",
      decide: async () => ({}) as never,
      respond: async () => ""
    };
    expect(() => judgeModel(model, limits)).toThrow("has no chat()");
  });
});
