// The support example: a desk (a client) and a customer the environment
// plays, with a goal only the customer knows. Scripted when the deployment
// has no model; the deployment's model, told the goal, when it has one.
// The desk's credential never reads the customer's side or the goal.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { DONE } from "../../examples/support/index";
import { toolCalls } from "../../src/messages/build";
import type { Message } from "../../src/messages/schema";
import type { StepResponse } from "../../src/protocol";
import { grader } from "../fixtures/judged";
import {
  authed,
  call,
  createResetSession,
  json,
  send,
  type TestSession
} from "./helpers";
import { api, ok } from "./session-helpers";

const step = async (s: TestSession, action: object) => {
  const res = await s.call("/step", send("POST", { action }));
  expect(res.status, await res.clone().text()).toBe(200);
  return json<StepResponse>(res);
};

const find = toolCalls({
  name: "find_orders",
  arguments: { email: "ada@example.com" }
});
const refund = (order: string) =>
  toolCalls({ name: "refund", arguments: { order } });
const say = (content: string) => ({ role: "assistant" as const, content });

const desk = () =>
  createResetSession({ environment: "support", task_index: 0 });

beforeEach(() => grader.reset([]));

describe("the support example with its scripted customer", () => {
  it("rewards the desk that refunds the order the customer meant", async () => {
    const s = await desk();
    const orders = await step(s, find);
    expect(orders).toMatchObject({ agent: "agent", turn: ["agent"] });
    expect(orders.observations[0]!.content).toContain("A-101: teapot");
    // Words go to the customer, who answers in the same step.
    const asked = await step(s, say("Which order is it?"));
    expect(asked).toMatchObject({ turn: ["agent"], done: false });
    expect(asked.observations.at(-1)!.content).toBe(
      "The customer: It is order A-101, the teapot. Please refund it."
    );
    await step(s, refund("A-101"));
    const last = await step(s, say("Refunded."));
    expect(last).toMatchObject({
      done: true,
      reward: 1,
      rewards: { agent: 1, user: 1 }
    });
    expect(last.observations.at(-1)!.content).toContain(DONE);
  });

  it("gives nothing to a desk that refunds the wrong order", async () => {
    const s = await desk();
    await step(s, refund("A-100"));
    const last = await step(s, say("Done."));
    expect(last).toMatchObject({ done: true, reward: 0 });
    expect(last.observations.at(-1)!.content).toContain("the wrong order");
  });

  it("never shows the desk's credential the customer's side or its goal", async () => {
    const s = await desk();
    await step(s, say("How can I help?"));
    const minted = await s.call(
      "/tokens",
      send("POST", { scope: "act", agent: "agent" })
    );
    const { token } = await json<{ token: string }>(minted);
    const as = (path: string) =>
      call(`/v1/sessions/${s.session_id}${path}`, { headers: authed(token) });
    const { messages } = await json<{ messages: Message[] }>(
      await as("/messages?limit=100")
    );
    expect(messages.every((m) => m.agent === "agent")).toBe(true);
    const events = await (await as("/events?limit=1000")).text();
    expect(events).not.toContain("You wrote to the desk");
    expect(events).not.toContain('"agent":"user"');
    expect((await as("/hidden")).status).toBe(403);
  });
});

describe("the support example with a model as the customer", () => {
  it("asks the deployment's model, told the goal, for the customer's words", async () => {
    const id = env.JUDGED.newUniqueId();
    const stub = api(env.JUDGED.get(id));
    ok(
      await stub.create({
        sessionId: id.toString(),
        environment: "support",
        task: undefined
      })
    );
    ok(await stub.reset({}));
    grader.reset(["The teapot, A-101.", `Lovely, thanks. ${DONE}`]);
    const asked = ok(await stub.step({ action: say("Which order?") }));
    expect(asked.observations.at(-1)!.content).toBe(
      "The customer: The teapot, A-101."
    );
    // The model played the customer: its goal in the system prompt, the
    // desk's words as what it was told.
    const [prompt] = grader.asked;
    expect(prompt![0]!.content).toContain("order A-101 (the teapot)");
    expect(prompt!.at(-1)).toEqual({
      role: "user",
      content: "The desk: Which order?"
    });
    ok(await stub.step({ action: refund("A-101") }));
    const last = ok(await stub.step({ action: say("Refunded.") }));
    expect(last).toMatchObject({ done: true, reward: 1 });
    expect(grader.asked).toHaveLength(2);
  });
});
