import { describe, expect, it } from "vitest";
import {
  call,
  decisionJson,
  expectedDecision,
  options,
  recordSleeps,
  request,
  textRequest
} from "./fixtures.case";
import { ModelError } from "./model-error";
import { decisionMessages, decisionSchema, textMessages } from "./prompt";
import { withRetries } from "./retry";
import {
  type AiBindingLike,
  workersAIModel,
  workersAIModelFromEnv
} from "./workers-ai-model";

// The Workers AI adapter against a fake binding: the request it sends and how it reads answers.
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
