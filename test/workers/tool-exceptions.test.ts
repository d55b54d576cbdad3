// A tool that throws: its author finds what it threw on the step's
// `tool.finished` event (the stack only in development, ROOST_DEV=1, which
// the pool binds), and the model's observation stays the one-line message.
import { describe, expect, it } from "vitest";
import { createResetSession, json, send, type TestSession } from "./helpers";
import { inside, stubOf } from "./session-helpers";
import { hasType, openSocket } from "./ws-helpers";

const faulty = (mode: string, id = "c0") => ({
  action: {
    tool_calls: [
      {
        id,
        type: "function",
        function: { name: "faulty", arguments: { mode } }
      }
    ]
  }
});

interface Finished {
  type: "tool.finished";
  call_id: string;
  tool: string;
  is_error: boolean;
  exception?: { message: string; stack?: string };
}

const finishedEvents = async (s: TestSession): Promise<Finished[]> =>
  (
    await json<{ events: { type: string }[] }>(await s.call("/events?after=0"))
  ).events.filter((e): e is Finished => e.type === "tool.finished");

const observation = async (res: Response) => {
  expect(res.status).toBe(200);
  const out = await json<{ observations: { content: string }[] }>(res);
  return out.observations[0]!.content;
};

describe("a tool's exception", () => {
  it("rides on tool.finished with its stack in development; the observation and the transcript keep the message only", async () => {
    const s = await createResetSession({ environment: "lab" });
    const content = await observation(
      await s.call("/step", send("POST", faulty("throw")))
    );
    expect(content).toBe("Tool faulty failed: tool exploded");
    const [finished] = await finishedEvents(s);
    expect(finished).toMatchObject({
      call_id: "c0",
      tool: "faulty",
      is_error: true,
      exception: { message: "tool exploded" }
    });
    // The stack names the tool's own module, where it threw.
    expect(finished!.exception?.stack).toMatch(/^Error: tool exploded\n/);
    expect(finished!.exception?.stack).toContain("fixtures/lab.ts");
    // What the model reads again later has no stack either.
    const { messages } = await json<{ messages: { content?: unknown }[] }>(
      await s.call("/messages?limit=100")
    );
    const text = JSON.stringify(messages);
    expect(text).toContain("Tool faulty failed: tool exploded");
    expect(text).not.toContain("fixtures/lab.ts");
    expect(text).not.toContain("    at ");
  });

  it("streams the same event to a socket, and a direct call's event carries it too", async () => {
    const s = await createResetSession({ environment: "lab" });
    const sock = await openSocket(s.session_id, s.token);
    await sock.until(hasType("session.snapshot"));
    const res = await s.call(
      "/tools/faulty",
      send("POST", { arguments: { mode: "throw" } })
    );
    expect(await json<{ content: string }>(res)).toMatchObject({
      content: "Tool faulty failed: tool exploded",
      is_error: true
    });
    const frames = await sock.until(hasType("tool.finished"));
    sock.ws.close();
    const streamed = frames.find((f) => f.type === "tool.finished") as
      | Finished
      | undefined;
    expect(streamed?.exception?.message).toBe("tool exploded");
    expect(streamed?.exception?.stack).toContain("fixtures/lab.ts");
  });

  // A tool may throw a megabyte; the event row and every socket frame
  // carry its message cut to 4 KiB and its stack to 16 KiB, each with the
  // marker capContent adds (its size is the bytes cut, a few dozen bytes).
  it("keeps a huge exception's message and stack within their caps on the event", async () => {
    const s = await createResetSession({ environment: "lab" });
    const res = await s.call("/step", send("POST", faulty("huge")));
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const [finished] = await finishedEvents(s);
    const bytes = (text = "") => new TextEncoder().encode(text).length;
    const { message, stack } = finished!.exception!;
    expect(message).toMatch(/\n\[truncated: \d+ more bytes\]$/);
    expect(bytes(message)).toBeLessThanOrEqual(4 * 1024 + 64);
    expect(bytes(stack)).toBeLessThanOrEqual(16 * 1024 + 64);
  });

  it("has the message but no stack when the object runs in production", async () => {
    const s = await createResetSession({ environment: "lab" });
    // The pool binds ROOST_DEV=1 for every object; this one reads as a
    // deployment without it would.
    await inside(stubOf(s.session_id), (instance) => {
      instance.runtime.shared.dev = false;
    });
    const content = await observation(
      await s.call("/step", send("POST", faulty("throw")))
    );
    expect(content).toBe("Tool faulty failed: tool exploded");
    const [finished] = await finishedEvents(s);
    expect(finished?.is_error).toBe(true);
    expect(finished?.exception).toEqual({ message: "tool exploded" });
  });

  it("is absent when the tool's code threw nothing: a timeout, an unknown tool, arguments the schema refused", async () => {
    const s = await createResetSession({ environment: "lab" });
    const res = await s.call(
      "/step",
      send("POST", {
        action: {
          tool_calls: [
            faulty("slow", "t").action.tool_calls[0],
            {
              id: "u",
              type: "function",
              function: { name: "nope", arguments: {} }
            },
            faulty("explode", "a").action.tool_calls[0]
          ]
        }
      })
    );
    expect(res.status).toBe(200);
    const finished = await finishedEvents(s);
    expect(finished.map((f) => [f.call_id, f.is_error])).toEqual([
      ["t", true],
      ["u", true],
      ["a", true]
    ]);
    expect(finished.some((f) => f.exception !== undefined)).toBe(false);
  });
});
