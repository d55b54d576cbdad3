// A socket that acks and falls too far behind is closed with 4408, and
// the others keep streaming.

import { describe, expect, it } from "vitest";
import { createResetSession, step } from "./helpers";
import { countType, eventFrames, hasType, openSocket } from "./ws-helpers";

describe("slow readers", () => {
  it("closes a socket that acks and falls too far behind with 4408; the others keep streaming", async () => {
    const s = await createResetSession({ environment: "lab" });
    const slow = await openSocket(s.session_id, s.token);
    const fast = await openSocket(s.session_id, s.token);
    const [snap] = await slow.until(hasType("session.snapshot"));
    await fast.until(hasType("session.snapshot"));
    // The slow client acknowledges once, then never again.
    slow.send({ type: "ack", seq: snap!.last_seq as number });
    slow.send({ type: "ping" });
    await slow.until(hasType("pong"));
    for (let i = 0; i < 8; i++) await step(s, "note", { text: `n${i}` });
    expect((await slow.closed).code).toBe(4408);
    const fastFrames = await fast.until(countType("step", 8));
    expect(
      eventFrames(fastFrames).filter((f) => f.type === "step")
    ).toHaveLength(8);
    fast.ws.close();
  });
});
