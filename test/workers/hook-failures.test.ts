// An environment's own hook that throws (reset, step, evaluate, frame,
// onClose): the caller gets a 500 naming the environment, the hook and
// the error, the stack in development only; the operator's log names the
// session and step; and the session is exactly as it was before the call.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ErrorBody } from "../../src/errors";
import { createSession, json, send, type TestSession } from "./helpers";
import { inside, stubOf } from "./session-helpers";
import { hasType, openSocket } from "./ws-helpers";

interface Failure {
  error: ErrorBody & {
    details: {
      environment: string;
      hook: string;
      error: string;
      stack?: string;
    };
  };
}

const note = (text: string) => ({
  action: {
    tool_calls: [
      {
        id: `c-${text}`,
        type: "function",
        function: { name: "note", arguments: { text } }
      }
    ]
  }
});

/** Everything a client can read of the session: transcript, state, store, status. */
const snapshot = async (s: TestSession) => {
  const read = async (path: string) => {
    const res = await s.call(path);
    expect(res.status).toBe(200);
    return res.json();
  };
  const status = (await read("")) as Record<string, unknown>;
  // Read-time fields move by themselves.
  delete status.last_used_at;
  delete status.expires_at;
  return {
    messages: await read("/messages?limit=100"),
    state: await read("/state"),
    keys: await read("/environment/keys"),
    status
  };
};

const logged: string[] = [];
const spyOnErrors = () =>
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    logged.push(args.map(String).join(" "));
  });

afterEach(() => {
  vi.restoreAllMocks();
  logged.length = 0;
});

const failure = async (res: Response): Promise<Failure["error"]> => {
  expect(res.status).toBe(500);
  return (await json<Failure>(res)).error;
};

describe("a hook that throws", () => {
  it("reset: a 500 naming the hook, its error and its stack; the running episode stays as it was", async () => {
    spyOnErrors();
    const s = await createSession({ environment: "brittle" });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    expect((await s.call("/step", send("POST", note("a")))).status).toBe(200);
    const before = await snapshot(s);
    const error = await failure(
      await s.call("/reset", send("POST", { task: { throwIn: "reset" } }))
    );
    expect(error.code).toBe("hook_failed");
    expect(error.message).toBe(
      'The reset hook of environment "brittle" threw: brittle reset broke'
    );
    expect(error.details).toMatchObject({
      environment: "brittle",
      hook: "reset",
      error: "brittle reset broke"
    });
    // The stack is the author's: it names the file that threw.
    expect(error.details.stack).toMatch(/^TypeError: brittle reset broke\n/);
    expect(error.details.stack).toContain("brittle.ts");
    expect(await snapshot(s)).toEqual(before);
    // The same episode goes on: its second step is step 2.
    const next = await s.call("/step", send("POST", note("b")));
    expect(next.status).toBe(200);
    const line = logged.find((l) => l.includes("reset hook"));
    expect(line).toContain(`session ${s.session_id}, episode 2, reset`);
    expect(line).toContain("brittle.ts");
  });

  it("evaluate: the step's tool writes are undone, and the log line names the step", async () => {
    spyOnErrors();
    const s = await createSession({
      environment: "brittle",
      task: { throwIn: "evaluate" }
    });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    const before = await snapshot(s);
    const error = await failure(await s.call("/step", send("POST", note("x"))));
    expect(error.details).toMatchObject({ hook: "evaluate" });
    expect(error.message).toContain('evaluate hook of environment "brittle"');
    expect(await snapshot(s)).toEqual(before);
    expect(logged.find((l) => l.includes("evaluate hook"))).toContain(
      `session ${s.session_id}, episode 1, step 1`
    );
  });

  it("step: a custom step that threw after its tools ran leaves no trace of them", async () => {
    const s = await createSession({ environment: "brittle-step" });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    expect((await s.call("/step", send("POST", note("one")))).status).toBe(200);
    const before = await snapshot(s);
    const error = await failure(
      await s.call("/step", send("POST", note("two")))
    );
    expect(error.details).toMatchObject({
      environment: "brittle-step",
      hook: "step",
      error: "brittle step broke"
    });
    expect(await snapshot(s)).toEqual(before);
  });

  it("frame: a read answers the failure too", async () => {
    const s = await createSession({
      environment: "brittle",
      task: { throwIn: "frame" }
    });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    const error = await failure(await s.call("/frame"));
    expect(error.details).toMatchObject({ hook: "frame" });
  });

  it("over a socket: the step's failed reply names the hook", async () => {
    const s = await createSession({
      environment: "brittle",
      task: { throwIn: "evaluate" }
    });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    sock.ws.send(JSON.stringify({ type: "step", id: "s1", ...note("s") }));
    const frames = await sock.until(hasType("reply"));
    sock.ws.close();
    const reply = frames.find((f) => f.type === "reply") as
      | { id: string; ok: boolean; error: Failure["error"] }
      | undefined;
    expect(reply).toMatchObject({ id: "s1", ok: false });
    expect(reply?.error).toMatchObject({
      code: "hook_failed",
      details: { hook: "evaluate" }
    });
  });

  it("in production: the message and the hook, no stack", async () => {
    const s = await createSession({
      environment: "brittle",
      task: { throwIn: "evaluate" }
    });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    await inside(stubOf(s.session_id), (instance) => {
      instance.runtime.shared.dev = false;
    });
    const error = await failure(await s.call("/step", send("POST", note("p"))));
    expect(error.details).toEqual({
      environment: "brittle",
      hook: "evaluate",
      error: "brittle evaluate broke"
    });
  });

  it("onClose: the session is deleted anyway, and the log names the hook and the session", async () => {
    spyOnErrors();
    const s = await createSession({
      environment: "brittle",
      task: { throwIn: "onClose" }
    });
    expect((await s.call("/reset", send("POST", {}))).status).toBe(200);
    const res = await s.call("", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect((await s.call("/state")).status).toBe(404);
    const line = logged.find((l) => l.includes("onClose hook"));
    expect(line).toContain(`session ${s.session_id}`);
    expect(line).toContain("brittle onClose broke");
    expect(line).toContain("brittle.ts");
  });
});
