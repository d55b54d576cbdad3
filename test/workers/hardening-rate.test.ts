import { describe, expect, it } from "vitest";
import { action, createResetSession, errorOf, send } from "./helpers";
import { inside, stubOf } from "./session-helpers";

describe("per-session rate limit", () => {
  it("answers 429 with Retry-After past the rate, and only for that session", async () => {
    const s = await createResetSession({ environment: "lab" });
    const other = await createResetSession({ environment: "lab" });
    const stub = stubOf(s.session_id);
    await inside(stub, (instance) => {
      instance.runtime.now = () => 1_000_000;
      instance.runtime.setRateLimit(5);
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await s.call("/step", send("POST", action("bump")));
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get("Retry-After")).toBe("1");
        expect((await errorOf(res)).code).toBe("rate_limited");
      } else await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // Reads are not limited, and the rejected steps changed nothing.
    const status = (await (await s.call("")).json()) as { steps: number };
    expect(status.steps).toBe(5);
    expect(
      (await other.call("/step", send("POST", action("bump")))).status
    ).toBe(200);
    // A second later the bucket has refilled.
    await inside(stub, (instance) => {
      instance.runtime.now = () => 1_001_000;
    });
    expect((await s.call("/step", send("POST", action("bump")))).status).toBe(
      200
    );
  });
});
