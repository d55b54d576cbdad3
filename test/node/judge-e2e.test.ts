import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import {
  E2E_MODEL_API_KEY,
  fakeOpenAIRequests,
  scriptFakeOpenAI,
  textCompletion
} from "./fake-openai";

// The catalog's judge under wrangler dev, whose `openai` model (the
// deployment's default, so the judge's) is the fake OpenAI-compatible
// server, with an API key set in the server's variables.
const base = inject("baseUrl");
const fake = inject("fakeOpenAIUrl");
const devLogPath = inject("devLogPath");

/** Every body the server answered, to look for the key in. */
const answered: string[] = [];

const call = async (
  path: string,
  init: { body?: unknown; token?: string; key?: string } = {}
) => {
  const res = await fetch(`${base}${path}`, {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      "content-type": "application/json",
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.key ? { "idempotency-key": init.key } : {})
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  });
  const text = await res.text();
  answered.push(text);
  // biome-ignore lint/suspicious/noExplicitAny: test-side JSON
  return { status: res.status, body: JSON.parse(text) as any, text };
};

const REFERENCE = "The feather wand and the catnip mouse, both rated 4.8.";

const judgedSession = async () => {
  const created = await call("/v1/sessions", {
    body: {
      environment: "catalog",
      task: {
        question: "Which cat toys are rated 4.5 or higher?",
        reference: REFERENCE
      }
    }
  });
  expect(created.status).toBe(201);
  const { session_id: id, token } = created.body as {
    session_id: string;
    token: string;
  };
  expect(
    (await call(`/v1/sessions/${id}/reset`, { body: {}, token })).status
  ).toBe(200);
  const step = (text: string, key?: string) =>
    call(`/v1/sessions/${id}/step`, {
      body: { action: { role: "assistant", content: text } },
      token,
      ...(key ? { key } : {})
    });
  return { id, token, step };
};

const failure = { status: 500, body: { error: { message: "overloaded" } } };

describe("the catalog's judge against an OpenAI-compatible server", () => {
  it("reports the verdict in the step and its event, and a retried or replayed step does not ask again", async () => {
    await scriptFakeOpenAI(fake, [
      textCompletion('{"score": 0.8, "reason": "Names both toys."}')
    ]);
    const { id, token, step } = await judgedSession();
    const first = await step(
      "The feather wand and the catnip mouse.",
      "answer-1"
    );
    expect(first.status).toBe(200);
    expect(first.body.reward).toBe(0.8);
    expect(first.body.reward_components).toEqual({
      answer: 0.8,
      "answer.check": 1,
      "answer.judge": 0.8
    });
    const requests = await fakeOpenAIRequests(fake);
    expect(requests).toHaveLength(1);
    const sent = requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    const body = sent.body as {
      model: string;
      messages: { content: string }[];
    };
    expect(body.model).toBe("fake-model");
    // The judge saw the reference the model never does.
    expect(body.messages[1]!.content).toContain(
      `Reference answer: ${REFERENCE}`
    );
    // The verdict's reason stays on the server.
    expect(first.text).not.toContain("Names both toys");

    // The same request again, and again after the object restarted.
    expect(
      (await step("The feather wand and the catnip mouse.", "answer-1")).body
    ).toEqual(first.body);
    const aborted = await fetch(`${base}/__e2e/sessions/${id}/abort`, {
      method: "POST"
    });
    expect(aborted.status).toBe(204);
    expect(
      (await step("The feather wand and the catnip mouse.", "answer-1")).body
    ).toEqual(first.body);
    expect(await fakeOpenAIRequests(fake)).toHaveLength(1);

    const events = await call(`/v1/sessions/${id}/events?after=0&limit=1000`, {
      token
    });
    const stepped = (events.body.events as { type: string }[]).filter(
      (e) => e.type === "step"
    );
    expect(stepped).toHaveLength(1);
    expect(stepped[0]).toMatchObject({
      reward_components: first.body.reward_components
    });

    // A search costs no judge: the gate's check is 0 and the judge skipped.
    const search = await call(`/v1/sessions/${id}/step`, {
      body: {
        action: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: {
                name: "query",
                arguments: '{"collection":"products"}'
              }
            }
          ]
        }
      },
      token
    });
    expect(search.body.reward_components).toEqual({
      answer: 0,
      "answer.check": 0,
      "answer.judge": { skipped: true }
    });
    expect(await fakeOpenAIRequests(fake)).toHaveLength(1);
  });

  it("retries a failed call once and reports the one verdict", async () => {
    await scriptFakeOpenAI(fake, [failure, textCompletion('{"score": 1}')]);
    const { step } = await judgedSession();
    const out = await step(REFERENCE);
    expect(out.status).toBe(200);
    expect(out.body.reward_components["answer.judge"]).toBe(1);
    expect(await fakeOpenAIRequests(fake)).toHaveLength(2);
  });

  it("reports a server failing every try, or answering garbage, as the component's error; the step answers 200", async () => {
    await scriptFakeOpenAI(fake, [failure, failure, failure]);
    const { step } = await judgedSession();
    const down = await step("Some toys.");
    expect(down.status).toBe(200);
    expect(down.body.reward).toBe(0);
    expect(down.body.reward_components["answer.judge"]).toEqual({
      value: 0,
      error: "Model server answered 500: overloaded"
    });
    expect(await fakeOpenAIRequests(fake)).toHaveLength(3);

    await scriptFakeOpenAI(fake, [
      textCompletion("Looks fine to me."),
      textCompletion('{"score": 7}'),
      textCompletion("still no verdict")
    ]);
    const garbage = await step("Other toys.");
    expect(garbage.status).toBe(200);
    expect(garbage.body.reward_components["answer.judge"]).toEqual({
      value: 0,
      // Its length only: the answer's words never reach the report.
      error: "the judge's answer holds no JSON object (16 characters of text)"
    });
    expect(await fakeOpenAIRequests(fake)).toHaveLength(3);
  });

  it("sends the deployment's key to the model server and nowhere else", async () => {
    await scriptFakeOpenAI(fake, [textCompletion('{"score": 0.5}')]);
    const { id, token, step } = await judgedSession();
    await step("The catnip mouse.");
    const [sent] = await fakeOpenAIRequests(fake);
    expect(sent!.headers.authorization).toBe(`Bearer ${E2E_MODEL_API_KEY}`);
    for (const path of [
      "",
      "/events?after=0&limit=1000",
      "/messages",
      "/state",
      "/frame"
    ]) {
      await call(`/v1/sessions/${id}${path}`, { token });
    }
    await call("/v1/environments");
    // Every answer of this file, failures included, and the server's log.
    expect(answered.length).toBeGreaterThan(10);
    for (const text of answered) expect(text).not.toContain(E2E_MODEL_API_KEY);
    expect(readFileSync(devLogPath, "utf8")).not.toContain(E2E_MODEL_API_KEY);
  });
});
