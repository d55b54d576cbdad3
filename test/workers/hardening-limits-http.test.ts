import { describe, expect, it } from "vitest";
import {
  action,
  createResetSession,
  errorOf,
  json,
  readable,
  send,
  type TestSession
} from "./helpers";

// Limits a client can reach through HTTP, each answered with its name in
// `details` and nothing changed.

/** Runs `refused` and checks the session reads exactly as before. */
const unchanged = async (s: TestSession, refused: () => Promise<void>) => {
  const before = await readable(s);
  await refused();
  expect(await readable(s)).toBe(before);
};

describe("limits over HTTP", () => {
  it("refuses an action with more tool calls than toolCallsPerAction", async () => {
    const s = await createResetSession({ environment: "lab" });
    const bumps = (n: number) =>
      send("POST", {
        action: {
          tool_calls: Array.from({ length: n }, (_, i) => ({
            id: `c${i}`,
            function: { name: "bump", arguments: {} }
          }))
        }
      });
    await unchanged(s, async () => {
      const res = await s.call("/step", bumps(65));
      expect(res.status).toBe(413);
      expect((await errorOf(res)).details).toMatchObject({
        limit: "toolCallsPerAction",
        max: 64
      });
    });
    expect((await s.call("/step", bumps(64))).status).toBe(200);
  });

  it("refuses more objects in one entry than objectsPerResult", async () => {
    const s = await createResetSession({ environment: "lab" });
    await unchanged(s, async () => {
      const objects = Array.from({ length: 1001 }, (_, i) => ({ i }));
      const res = await s.call(
        "/environment/manual/rows",
        send("POST", { objects })
      );
      expect(res.status).toBe(413);
      expect((await errorOf(res)).details).toMatchObject({
        limit: "objectsPerResult",
        max: 1000,
        count: 1001
      });
    });
  });

  it("refuses a string longer than stringBytes", async () => {
    const s = await createResetSession({ environment: "lab" });
    await unchanged(s, async () => {
      const res = await s.call(
        "/step",
        send("POST", action("note", { text: "x".repeat(256 * 1024 + 1) }))
      );
      expect(res.status).toBe(413);
      expect((await errorOf(res)).details).toMatchObject({
        limit: "stringBytes"
      });
    });
  });

  it("holds arguments sent as a JSON string to the depth limit once parsed", async () => {
    const s = await createResetSession({ environment: "lab" });
    const deep = `{"text":${"[".repeat(200)}${"]".repeat(200)}}`;
    const res = await s.call(
      "/step",
      send("POST", {
        action: {
          tool_calls: [
            { id: "c1", function: { name: "note", arguments: deep } }
          ]
        }
      })
    );
    expect(res.status).toBe(200);
    const out = await json<{
      observations: { content: string; is_error: boolean }[];
    }>(res);
    expect(out.observations[0]).toMatchObject({ is_error: true });
    expect(out.observations[0]?.content).toMatch(/nested deeper than 32/);
  });
});

describe("hostile names a client picks", () => {
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty"])(
    "answers 400 for a run naming the model %s",
    async (model) => {
      const s = await createResetSession({ environment: "forest" });
      const res = await s.call("/runs", send("POST", { prompt: "x", model }));
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_request");
    }
  );
});
