import { describe, expect, it } from "vitest";
import { createResetSession, send } from "./helpers";
import { abort, stubOf } from "./session-helpers";
import { follow } from "./ws-helpers";

// Abort the object at pseudo-random points during a run of steps; the client
// retries failures with the same Idempotency-Key. Every acknowledged step
// must be there exactly once, and nothing else. A socket follows along,
// reconnecting with ?after= whenever an abort drops it: it must end up with
// exactly the event log, each event once, batched or not.
const STEPS = 30;

const prng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

describe("fault injection", () => {
  it("keeps every acknowledged step exactly once across random aborts and retries", async () => {
    const s = await createResetSession({ environment: "lab" });
    const stub = stubOf(s.session_id);
    const follower = await follow(s.session_id, s.token);
    const random = prng(7);
    let aborts = 0;
    let retries = 0;
    for (let i = 0; i < STEPS; i++) {
      const body = {
        action: {
          tool_calls: [
            {
              id: `step${i}`,
              type: "function",
              // In flight for a few ms after its first events: an abort
              // lands before, inside or after the step.
              function: { name: "pause", arguments: { ms: 30 } }
            }
          ]
        }
      };
      const init = send("POST", body, {
        "Content-Type": "application/json",
        "Idempotency-Key": `k${i}`
      });
      for (let attempt = 0; ; attempt++) {
        expect(attempt).toBeLessThan(10);
        const pending = s.call("/step", init);
        if (attempt === 0 && random() < 0.4) {
          aborts++;
          await new Promise((r) =>
            setTimeout(r, 2 + Math.floor(random() * 20))
          );
          await abort(stub);
        }
        const res = await pending;
        if (res.status === 200) {
          await res.body?.cancel();
          break;
        }
        // Only platform trouble may fail a step here, and it says so: 503.
        expect(res.status).toBe(503);
        await res.body?.cancel();
        retries++;
      }
    }
    const status = (await (await s.call("")).json()) as { steps: number };
    expect(status.steps).toBe(STEPS);
    const state = (await (await s.call("/state")).json()) as {
      state: { count: number };
    };
    expect(state.state.count).toBe(STEPS);
    const { messages } = (await (
      await s.call("/messages?limit=1000")
    ).json()) as {
      messages: { role: string; tool_calls?: { id: string }[] }[];
    };
    const ids = messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    expect(ids).toEqual(Array.from({ length: STEPS }, (_, i) => `step${i}`));
    expect(aborts).toBeGreaterThan(5);
    const { events } = (await (
      await s.call("/events?after=0&limit=1000")
    ).json()) as { events: { type: string; seq: number }[] };
    const followed = await follower.reached(events.at(-1)!.seq);
    follower.stop();
    expect(followed).toEqual(events);
    expect(follower.reconnects).toBeGreaterThan(0);
    const interrupted = events.filter((e) => e.type === "step.aborted").length;
    // Most aborts here land between steps (1 of 12 cut one short in runs
    // on this machine), so this is reported, not asserted: timing decides.
    // The deterministic mid-step abort is in session-durability.test.ts.
    console.log(
      `fault injection: ${aborts} aborts, ${retries} retries, ${interrupted} steps interrupted, ${follower.reconnects} socket reconnects`
    );
  });
});
