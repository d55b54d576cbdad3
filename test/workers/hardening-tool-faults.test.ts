import { describe, expect, it } from "vitest";
import { createSession, send } from "./helpers";

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
    const s = await createSession({ environment: "lab" });
    await s.call("/reset", send("POST", {}));
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
});
