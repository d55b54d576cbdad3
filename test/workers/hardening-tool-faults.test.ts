import { describe, expect, it } from "vitest";
import { createResetSession, json, send } from "./helpers";
import { hasType, openSocket } from "./ws-helpers";

const calls = (...modes: string[]) => ({
  action: {
    tool_calls: modes.map((mode, i) => ({
      id: `c${i}`,
      type: "function",
      function: { name: "faulty", arguments: { mode } }
    }))
  }
});

describe("tool faults", () => {
  it("turns throws, timeouts, unserializable returns and late yields into error messages; the session stays usable", async () => {
    const s = await createResetSession({ environment: "lab" });
    const res = await s.call(
      "/step",
      send("POST", calls("throw", "slow", "bigint", "cycle", "late_yield"))
    );
    expect(res.status).toBe(200);
    const out = (await res.json()) as {
      observations: { content: string; is_error: boolean }[];
    };
    expect(out.observations.map((o) => o.is_error)).toEqual([
      true,
      true,
      true,
      true,
      true
    ]);
    expect(out.observations[0]!.content).toContain("tool exploded");
    expect(out.observations[1]!.content).toContain("timed out after 20 ms");
    expect(out.observations[2]!.content).toMatch(/BigInt/i);
    expect(out.observations[3]!.content).toMatch(/circular|cyclic/i);
    expect(out.observations[4]!.content).toContain("timed out");
    // Nothing the timed-out call did afterwards reached the session.
    const state = (await (await s.call("/state")).json()) as {
      state: { count: number };
    };
    expect(state.state.count).toBe(0);
    const store = (await (await s.call("/environment")).json()) as {
      store: object;
    };
    expect(store.store).toEqual({});
    const next = await s.call(
      "/step",
      send("POST", {
        action: {
          tool_calls: [
            {
              id: "b",
              type: "function",
              function: { name: "bump", arguments: {} }
            }
          ]
        }
      })
    );
    expect(
      ((await next.json()) as { observations: { content: string }[] })
        .observations[0]!.content
    ).toBe("count=1");
  });

  it.each(["throw", "slow", "bigint", "cycle", "late_yield"])(
    "answers a direct call that fails by %s with is_error, over HTTP and the socket alike",
    async (mode) => {
      const s = await createResetSession({ environment: "lab" });
      const res = await s.call(
        "/tools/faulty",
        send("POST", { arguments: { mode } })
      );
      expect(res.status).toBe(200);
      const direct = await json<{ content: string; is_error: boolean }>(res);
      expect(direct.is_error).toBe(true);
      const sock = await openSocket(s.session_id, s.token);
      await sock.until(hasType("session.snapshot"));
      sock.send({ type: "call", id: "f", tool: "faulty", arguments: { mode } });
      const frames = await sock.until((f) => f.some((x) => x.id === "f"));
      expect(frames.find((x) => x.id === "f")).toMatchObject({
        ok: true,
        value: { is_error: true, content: direct.content }
      });
      sock.ws.close();
      // Nothing a failed or late call did reached the session.
      const state = await json<{ state: { count: number } }>(
        await s.call("/state")
      );
      expect(state.state.count).toBe(0);
      const store = await json<{ store: object }>(await s.call("/environment"));
      expect(store.store).toEqual({});
    }
  );
});
