// @vitest-environment happy-dom
// useSession with a scoped token, in a DOM (happy-dom) against the shared
// wrangler dev: what the hook says the token may do, the view that stays
// live for a read-only token, and the server's refusal of an action tried
// anyway, as a rejected promise rather than a hang.
import { act, createElement, type FunctionComponent } from "react";
import { describe, expect, inject, it } from "vitest";
import {
  createClient,
  RoostClientError,
  type RoostSession
} from "../../src/client/index";
import {
  type SessionHandle,
  type UseSessionOptions,
  useSession
} from "../../src/react/index";
import {
  actUntil,
  nodeFetch,
  reactRoots,
  WebSocket
} from "./helpers/react-dom";

const baseUrl = inject("baseUrl");
const client = createClient({ baseUrl, fetch: nodeFetch });
const roots = reactRoots();

const incr = (n = 1) => ({
  tool_calls: Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    type: "function" as const,
    function: { name: "incr", arguments: "{}" }
  }))
});

/** The latest handle the component rendered with. */
let hook: SessionHandle | undefined;
const View: FunctionComponent<UseSessionOptions> = (props) => {
  const session = useSession(props);
  hook = session;
  // A page that hides what its token cannot do.
  return createElement(
    "div",
    null,
    // What it shows is what it re-renders for.
    `${session.connection} step ${session.lastStep?.step ?? 0} ${JSON.stringify(session.state ?? null)}`,
    session.readOnly
      ? "read-only"
      : createElement("button", { type: "button" }, "Step")
  );
};
const h = () => hook!;

/** Lets React and the socket work until `predicate` holds. */
const until = (predicate: () => boolean, what: string) =>
  actUntil(predicate, what, () => ({
    connection: hook?.connection,
    state: hook?.state,
    error: String(hook?.error)
  }));

const mount = async (session: RoostSession) => {
  const container = await roots.render(
    createElement(View, {
      baseUrl,
      sessionId: session.id,
      token: session.token,
      WebSocket,
      fetch: nodeFetch,
      heartbeatMs: 0
    })
  );
  await until(
    () => hook?.connection === "open" && hook.state !== undefined,
    "the snapshot"
  );
  return container;
};

/** What `action` rejects with, run inside act. */
const rejection = async (action: () => Promise<unknown>) => {
  let error: unknown;
  await act(async () => {
    error = await action().then(
      () => undefined,
      (e: unknown) => e
    );
  });
  expect(error).toBeInstanceOf(RoostClientError);
  return error;
};

describe("useSession with a scoped token", () => {
  it("with an observe token: watches live, says it is read-only, and a step or reset rejects forbidden", async () => {
    const owner = await client.createSession({ environment: "counter" });
    await owner.reset();
    const { token } = await owner.mintToken({ scope: "observe" });
    const container = await mount(client.session(owner.id, token));
    expect(h().scope).toBe("observe");
    expect(h().readOnly).toBe(true);
    expect([h().can("read"), h().can("step"), h().can("fork")]).toEqual([
      true,
      false,
      false
    ]);
    expect(container.querySelector("button")).toBeNull();
    // The owner's steps stream in to the viewer.
    await owner.step(incr(2));
    await until(() => h().lastStep?.step === 1, "the owner's step");
    expect(h().state).toMatchObject({ count: 2 });
    // Tried anyway, each action rejects with the server's answer.
    expect(await rejection(() => h().step(incr()))).toMatchObject({
      code: "forbidden",
      details: { scope: "act", granted: "observe" }
    });
    expect(await rejection(() => h().reset())).toMatchObject({
      code: "forbidden",
      details: { scope: "control", granted: "observe" }
    });
    expect(await owner.status()).toMatchObject({ steps: 1, episode: 1 });
    // Refusals leave the socket open and the view live.
    expect(h().connection).toBe("open");
    await owner.step(incr());
    await until(() => h().lastStep?.step === 2, "the owner's next step");
    expect(h().state).toMatchObject({ count: 3 });
    await owner.delete();
  });

  it("with an act token: steps, but a fork rejects forbidden", async () => {
    const owner = await client.createSession({ environment: "counter" });
    await owner.reset();
    const { token } = await owner.mintToken({ scope: "act" });
    const container = await mount(client.session(owner.id, token));
    expect([h().scope, h().readOnly]).toEqual(["act", false]);
    expect([h().can("step"), h().can("reset"), h().can("fork")]).toEqual([
      true,
      false,
      false
    ]);
    expect(container.querySelector("button")?.textContent).toBe("Step");
    await act(async () => {
      await h().step(incr());
    });
    await until(() => h().lastStep?.step === 1, "the step");
    expect(h().state).toMatchObject({ count: 1 });
    expect(await rejection(() => h().fork(1))).toMatchObject({
      code: "forbidden",
      details: { scope: "control" }
    });
    await owner.delete();
  });

  it("with one agent's token: says which agent, shows its view, and steps as it", async () => {
    const owner = await client.createSession({ environment: "tictactoe" });
    await owner.reset();
    const { token } = await owner.mintToken({ scope: "act", agent: "x" });
    await mount(client.session(owner.id, token));
    expect([h().scope, h().agent, h().readOnly]).toEqual(["act", "x", false]);
    expect(h().state).toMatchObject({ agents: { turn: ["x"] } });
    const mark = (cell: number) => ({
      tool_calls: [
        {
          id: `m${cell}`,
          type: "function" as const,
          function: { name: "mark", arguments: JSON.stringify({ cell }) }
        }
      ]
    });
    let answer: Awaited<ReturnType<SessionHandle["step"]>> | undefined;
    await act(async () => {
      answer = await h().step(mark(5));
    });
    expect(answer).toMatchObject({ agent: "x", turn: ["o"] });
    // o moves from elsewhere; x's view hears of it, never o's own part.
    await owner.step(mark(1), { agent: "o" });
    await until(() => h().lastStep?.step === 2, "o's step");
    expect(h().state).toMatchObject({ agents: { turn: ["x"] } });
    expect(h().messages.length).toBeGreaterThan(0);
    expect(h().messages.every((m) => m.agent === "x")).toBe(true);
    expect(JSON.stringify(h().messages)).toContain("o marked 1");
    expect(JSON.stringify(h().messages)).not.toContain("You are o");
    await owner.delete();
  });

  it("with the session's own token: control, nothing read-only", async () => {
    const owner = await client.createSession({ environment: "counter" });
    await owner.reset();
    await mount(owner);
    expect([h().scope, h().readOnly, h().can("fork")]).toEqual([
      "control",
      false,
      true
    ]);
    // A token of no one agent: every agent's view.
    expect(h().agent).toBeUndefined();
    await owner.delete();
  });
});
