// A credential per agent (issue 62, item 2): a token minted for one agent
// of a multi-agent session steps only as that agent, is refused what would
// act out of turn, and cannot be turned into another agent's.
import { describe, expect, it } from "vitest";
import type { StepResponse } from "../../src/protocol";
import {
  action,
  call,
  createResetSession,
  errorOf,
  json,
  readable,
  send,
  type TestSession
} from "./helpers";

const mint = (s: TestSession, body: Record<string, unknown>) =>
  s.call("/tokens", send("POST", body));

const tokenOf = async (s: TestSession, agent: string) => {
  const res = await mint(s, { scope: "act", agent });
  expect(res.status, await res.clone().text()).toBe(201);
  const body = await json<{ token: string; agent: string; scope: string }>(res);
  expect(body).toMatchObject({ scope: "act", agent });
  return body.token;
};

const as = (s: TestSession, token: string, path: string, body: unknown) =>
  call(`/v1/sessions/${s.session_id}${path}`, {
    ...send("POST", body),
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${token}`
    }
  });

describe("a token for one agent", () => {
  it("steps as its agent without naming it, and the other's is refused out of turn", async () => {
    const s = await createResetSession({ environment: "tictactoe" });
    const x = await tokenOf(s, "x");
    const o = await tokenOf(s, "o");
    expect(x.startsWith("act~x.")).toBe(true);
    const before = await readable(s);
    const early = await as(s, o, "/step", action("mark", { cell: 5 }));
    expect(early.status).toBe(409);
    expect((await errorOf(early)).code).toBe("not_your_turn");
    expect(await readable(s)).toEqual(before);
    const first = await as(s, x, "/step", action("mark", { cell: 5 }));
    expect(first.status, await first.clone().text()).toBe(200);
    expect(await json<StepResponse>(first)).toMatchObject({
      agent: "x",
      turn: ["o"]
    });
    const second = await as(s, o, "/step", action("mark", { cell: 1 }));
    expect(await json<StepResponse>(second)).toMatchObject({ agent: "o" });
  });

  it("reads its agent's messages and the shared ones, none of the other's", async () => {
    const s = await createResetSession({ environment: "tictactoe" });
    const x = await tokenOf(s, "x");
    await s.call("/step", send("POST", action("mark", { cell: 5 })));
    await s.call("/step", send("POST", action("mark", { cell: 1 })));
    const read = async (path: string) =>
      json(
        await call(`/v1/sessions/${s.session_id}${path}`, {
          headers: { Authorization: `Bearer ${x}` }
        })
      );
    const { messages } = (await read("/messages?limit=100")) as {
      messages: { agent?: string }[];
    };
    const all = (await json(await s.call("/messages?limit=100"))) as {
      messages: { agent?: string }[];
    };
    expect(all.messages.some((m) => m.agent === "o")).toBe(true);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.agent !== "o")).toBe(true);
    expect(messages).toEqual(all.messages.filter((m) => m.agent !== "o"));
  });

  it("refuses to step as another agent, to call a tool outside a step, and to be forged into another's", async () => {
    const s = await createResetSession({ environment: "tictactoe" });
    const x = await tokenOf(s, "x");
    const before = await readable(s);
    const other = await as(s, x, "/step", {
      ...action("mark", { cell: 5 }),
      agent: "o"
    });
    expect(other.status).toBe(403);
    expect((await errorOf(other)).details).toMatchObject({
      agent: "o",
      granted: "x"
    });
    const direct = await as(s, x, "/tools/mark", { arguments: { cell: 5 } });
    expect(direct.status).toBe(403);
    // The agent is covered by the mac: renamed, the token admits nothing,
    // answered as any token that is not this session's.
    const forged = `act~o.${x.slice("act~x.".length)}`;
    const res = await as(s, forged, "/step", action("mark", { cell: 5 }));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toContain("do not admit");
    expect(await readable(s)).toEqual(before);
  });

  it("is minted only for an agent the environment has, and only to observe or act", async () => {
    const s = await createResetSession({ environment: "tictactoe" });
    const unknown = await mint(s, { scope: "act", agent: "z" });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).details).toMatchObject({
      agents: ["x", "o"]
    });
    expect((await mint(s, { scope: "control", agent: "x" })).status).toBe(400);
    const one = await createResetSession({ environment: "counter" });
    expect((await mint(one, { scope: "act", agent: "x" })).status).toBe(400);
  });
});
