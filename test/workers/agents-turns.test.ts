// Two agents in one session, turn by turn (the tic-tac-toe example): each
// step is one agent's, an action out of turn or by an agent the game lacks
// is refused and changes nothing, each agent is told only its own part,
// rewards are each agent's, and an abort mid-game loses nothing.
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/messages";
import type { StepResponse } from "../../src/protocol";
import {
  action,
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

const played = async (s: TestSession, cell: number, agent?: string) => {
  const res = await mark(s, cell, agent);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<StepResponse>(res);
};

interface Agents {
  turn: string[];
  rewards: Record<string, number>;
  returns: Record<string, number>;
  done: string[];
}

const stateOf = async (s: TestSession) =>
  (
    await json<{ state: { board: string; agents: Agents } }>(
      await s.call("/state")
    )
  ).state;

const messagesOf = async (s: TestSession) =>
  (await json<{ messages: Message[] }>(await s.call("/messages?limit=100")))
    .messages;

/** What a client can read of the session, to show a refusal changed nothing. */
const everything = async (s: TestSession) => ({
  readable: await readable(s),
  events: await (await s.call("/events?limit=1000")).text()
});

const game = () => createResetSession({ environment: "tictactoe" });

describe("two agents taking turns in one session", () => {
  it("starts with x's turn, each agent told its own part", async () => {
    const s = await game();
    expect((await stateOf(s)).agents).toEqual({
      turn: ["x"],
      rewards: { x: 0, o: 0 },
      returns: { x: 0, o: 0 },
      done: []
    });
    const opening = await messagesOf(s);
    expect(opening.map((m) => m.agent)).toEqual(["x", "o"]);
    expect(opening[0]!.content).toContain("You are x");
    expect(opening[1]!.content).toContain("You are o");
  });

  it("plays a game to the end: the turn passes, the winner gets 1 and the loser -1", async () => {
    const s = await game();
    const first = await played(s, 1);
    // The answer is the acting agent's: its own result, its reward, whose turn it is now.
    expect(first).toMatchObject({
      agent: "x",
      turn: ["o"],
      reward: 0,
      rewards: { x: 0, o: 0 },
      done: false
    });
    expect(first.observations).toEqual([
      expect.objectContaining({ role: "tool", agent: "x", name: "mark" })
    ]);
    expect(await played(s, 4, "o")).toMatchObject({ agent: "o", turn: ["x"] });
    await played(s, 2);
    await played(s, 5);
    const last = await played(s, 3, "x");
    expect(last).toMatchObject({
      agent: "x",
      turn: [],
      reward: 1,
      rewards: { x: 1, o: -1 },
      done: true,
      truncated: false
    });
    const { board, agents } = await stateOf(s);
    expect(board).toBe("xxxoo....");
    expect(agents).toMatchObject({
      turn: [],
      returns: { x: 1, o: -1 },
      done: ["x", "o"]
    });
    // Every message is one agent's: x never reads o's results, nor o x's.
    const messages = await messagesOf(s);
    const o = messages.filter((m) => m.agent === "o");
    expect(messages.every((m) => m.agent === "x" || m.agent === "o")).toBe(
      true
    );
    expect(o.at(-1)!.content).toContain("You lost.");
    expect(o.filter((m) => m.role === "assistant")).toHaveLength(2);
    // The step events name their agent and the turn after them.
    const events = await (await s.call("/events?limit=1000")).json();
    const steps = (events as { events: Record<string, unknown>[] }).events
      .filter((e) => e.type === "step")
      .map((e) => [e.agent, e.turn]);
    expect(steps).toEqual([
      ["x", ["o"]],
      ["o", ["x"]],
      ["x", ["o"]],
      ["o", ["x"]],
      ["x", []]
    ]);
    const again = await mark(s, 9, "o");
    expect(again.status).toBe(409);
    expect((await errorOf(again)).code).toBe("episode_not_running");
  });

  it("refuses an action out of turn with 409 naming whose turn it is, and changes nothing", async () => {
    const s = await game();
    await played(s, 5);
    const before = await everything(s);
    const res = await mark(s, 1, "x");
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toEqual({
      code: "not_your_turn",
      message: "It is not x's turn: it is o's.",
      details: { agent: "x", turn: ["o"] }
    });
    expect(await everything(s)).toEqual(before);
  });

  it("refuses an agent the game lacks with 400, and changes nothing", async () => {
    const s = await game();
    const before = await everything(s);
    const res = await mark(s, 1, "z");
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({
      code: "invalid_request",
      details: { agent: "z", agents: ["x", "o"] }
    });
    expect(await everything(s)).toEqual(before);
  });

  it("keeps the turn with an agent whose move was not legal", async () => {
    const s = await game();
    await played(s, 5);
    const taken = await played(s, 5);
    expect(taken).toMatchObject({ agent: "o", turn: ["o"], reward: 0 });
    expect(taken.observations[0]!.content).toContain("Cell 5 is taken");
    expect(await played(s, 1)).toMatchObject({ agent: "o", turn: ["x"] });
  });

  it("loses nothing acknowledged when the object is aborted mid-game", async () => {
    const s = await game();
    await played(s, 1);
    await played(s, 5);
    const before = await everything(s);
    await abort(stubOf(s.session_id));
    expect(await everything(s)).toEqual(before);
    // The game goes on from where it stood: x's turn, o's mark in 5.
    const res = await mark(s, 2, "o");
    expect(res.status).toBe(409);
    expect(await played(s, 2)).toMatchObject({ agent: "x", turn: ["o"] });
    expect((await stateOf(s)).board).toBe("xx..o....");
  });

  it("answers a one-agent environment's step that names an agent with 400", async () => {
    const s = await createResetSession();
    const res = await s.call(
      "/step",
      send("POST", { ...action("incr"), agent: "x" })
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain('leave "agent" out');
  });
});
