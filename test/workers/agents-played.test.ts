// An agent the environment plays itself (tictactoe-bot's o): its turn is
// taken in the step that handed it over, so the client's answer holds the
// reply; its turns are in the transcript and the event log as its own,
// withheld from the other agent; a step whose played turn fails changes
// nothing; and an abort loses nothing acknowledged.
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/messages";
import type { ForkResponse, StepResponse } from "../../src/protocol";
import { asSession, fork, view } from "./fork-helpers";
import {
  action,
  authed,
  call,
  createResetSession,
  errorOf,
  json,
  readable,
  send,
  type TestSession
} from "./helpers";
import { abort, stubOf } from "./session-helpers";

const mark = (s: TestSession, cell: number, agent?: string) =>
  s.call(
    "/step",
    send("POST", {
      ...action("mark", { cell }),
      ...(agent === undefined ? {} : { agent })
    })
  );

const played = async (s: TestSession, cell: number) => {
  const res = await mark(s, cell);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<StepResponse>(res);
};

const stateOf = async (s: TestSession) =>
  (
    await json<{
      state: { board: string; agents: { turn: string[] } };
      steps: number;
    }>(await s.call("/state"))
  ).state;

const messagesOf = async (s: TestSession) =>
  (await json<{ messages: Message[] }>(await s.call("/messages?limit=100")))
    .messages;

const everything = async (s: TestSession) => ({
  readable: await readable(s),
  events: await (await s.call("/events?limit=1000")).text()
});

const game = (task_index = 0) =>
  createResetSession({ environment: "tictactoe-bot", task_index });

describe("an agent the environment plays", () => {
  it("answers x's step with o's reply, the turn back with x", async () => {
    const s = await game();
    const first = await played(s, 5);
    expect(first).toMatchObject({
      agent: "x",
      turn: ["x"],
      reward: 0,
      rewards: { x: 0, o: 0 },
      done: false
    });
    // x's own result, then what the game told x of o's move; o's action and
    // its tool result are o's own.
    expect(first.observations.map((m) => [m.role, m.agent])).toEqual([
      ["tool", "x"],
      ["user", "x"]
    ]);
    expect(first.observations[1]!.content).toContain("o marked 1");
    expect((await stateOf(s)).board).toBe("o...x....");
    const messages = await messagesOf(s);
    const o = messages.filter((m) => m.agent === "o");
    expect(o.map((m) => m.role)).toEqual(["user", "user", "assistant", "tool"]);
    // One step: the played turn rides in it.
    const status = await json<{ steps: number }>(await s.call(""));
    expect(status.steps).toBe(1);
  });

  it("plays o first when the opening gives it the turn, inside the reset", async () => {
    const s = await game(1);
    expect((await stateOf(s)).board).toBe("xo.......");
    expect((await stateOf(s)).agents.turn).toEqual(["x"]);
    const messages = await messagesOf(s);
    expect(messages.at(-1)).toMatchObject({ agent: "x", role: "user" });
    expect(messages.at(-1)!.content).toContain("o marked 2");
  });

  it("plays a game to the end: x's win is the session's return", async () => {
    const s = await game();
    // o takes the first free cell: 1, then 2; x's diagonal and column win.
    await played(s, 5);
    await played(s, 3);
    const last = await played(s, 7);
    expect(last).toMatchObject({
      agent: "x",
      turn: [],
      reward: 1,
      rewards: { x: 1, o: -1 },
      done: true
    });
    expect((await stateOf(s)).board).toBe("oox.x.x..");
    // The step events are x's, three of them; o's turns are in them.
    const events = (
      (await (await s.call("/events?limit=1000")).json()) as {
        events: Record<string, unknown>[];
      }
    ).events;
    expect(events.filter((e) => e.type === "step").map((e) => e.agent)).toEqual(
      ["x", "x", "x"]
    );
    // o's tool ran as o's: its events carry o.
    const finished = events.filter((e) => e.type === "tool.finished");
    expect(finished.map((e) => e.agent)).toEqual(["x", "o", "x", "o", "x"]);
  });

  it("shows x's credential nothing of o's turns but what the game told x", async () => {
    const s = await game();
    const minted = await s.call(
      "/tokens",
      send("POST", { scope: "act", agent: "x" })
    );
    expect(minted.status).toBe(201);
    const { token } = await json<{ token: string }>(minted);
    const asX = (path: string) =>
      call(`/v1/sessions/${s.session_id}${path}`, {
        headers: authed(token)
      });
    await played(s, 5);
    const events = (
      (await (await asX("/events?limit=1000")).json()) as {
        events: { agent?: string; message?: Message }[];
      }
    ).events;
    expect(events.some((e) => e.agent === "o")).toBe(false);
    expect(events.some((e) => e.message?.agent === "o")).toBe(false);
    const view = (
      (await (await asX("/messages?limit=100")).json()) as {
        messages: Message[];
      }
    ).messages;
    expect(view.every((m) => m.agent === "x")).toBe(true);
  });

  it("refuses a step as o, whose turn it never is, and changes nothing", async () => {
    const s = await game();
    const before = await everything(s);
    const res = await mark(s, 2, "o");
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe("not_your_turn");
    expect(await everything(s)).toEqual(before);
  });

  it("loses nothing acknowledged when the object is aborted mid-game", async () => {
    const s = await game();
    await played(s, 5);
    const before = await everything(s);
    await abort(stubOf(s.session_id));
    expect(await everything(s)).toEqual(before);
    await played(s, 3);
    expect((await stateOf(s)).board).toBe("oox.x....");
  });

  it("tags what a played agent's play emits as its own, withheld from the other agent", async () => {
    const s = await createResetSession({ environment: "duet" });
    const minted = await s.call(
      "/tokens",
      send("POST", { scope: "act", agent: "a" })
    );
    const { token } = await json<{ token: string }>(minted);
    const res = await s.call(
      "/step",
      send("POST", action("note", { text: "hi" }))
    );
    expect(res.status, await res.clone().text()).toBe(200);
    const all = await (await s.call("/events?limit=1000")).text();
    expect(all).toContain("b keeps its plan secret");
    const mine = await (
      await call(`/v1/sessions/${s.session_id}/events?limit=1000`, {
        headers: authed(token)
      })
    ).text();
    expect(mine).not.toContain("keeps its plan secret");
    expect(mine).not.toContain("You are b");
  });

  it("refuses a step whose played turn fails, or says too much, and changes nothing", async () => {
    for (const [play, status, code] of [
      ["fail", 500, "hook_failed"],
      ["huge", 413, "payload_too_large"]
    ] as const) {
      const s = await createResetSession({
        environment: "duet",
        task: { play }
      });
      const before = await everything(s);
      const res = await s.call(
        "/step",
        send("POST", action("note", { text: "hi" }))
      );
      expect(res.status, play).toBe(status);
      expect((await errorOf(res)).code).toBe(code);
      // Only the aborted step's mark is new in the log.
      const after = await everything(s);
      expect(after.readable).toEqual(before.readable);
    }
  });

  it("forks with every agent where it stands; each copy plays on alone", async () => {
    const s = await game();
    await played(s, 5);
    const res = await fork(s, { count: 2 });
    expect(res.status).toBe(201);
    const copies = (await json<ForkResponse>(res)).sessions.map(asSession);
    const before = await view(s);
    for (const copy of copies) expect(await view(copy)).toEqual(before);
    // One copy wins on the diagonal; the other and the source play on.
    await played(copies[0]!, 3);
    expect(await played(copies[0]!, 7)).toMatchObject({
      done: true,
      reward: 1
    });
    expect(await played(copies[1]!, 9)).toMatchObject({
      turn: ["x"],
      done: false
    });
    expect((await stateOf(copies[1]!)).board).toBe("oo..x...x");
    expect(await view(s)).toEqual(before);
  });

  it("is left out of what Aviary's reset offers: the served agent's tools", async () => {
    const start = await call(
      "/v1/environments/duet/aviary/start",
      send("POST", {})
    );
    const { env_id } = await json<{ env_id: string }>(start);
    const res = await call(
      "/v1/environments/duet/aviary/reset",
      send("POST", { env_id })
    );
    expect(res.status).toBe(200);
    const [messages, tools] =
      await json<[{ content: string }[], { function: { name: string } }[]]>(
        res
      );
    expect(messages.map((m) => m.content)).toEqual(["You are a."]);
    // b's peek is b's alone.
    expect(tools.map((t) => t.function.name)).toEqual(["note"]);
  });
});
