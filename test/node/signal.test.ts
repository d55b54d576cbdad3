// How the Node tests wait for a callback: it must neither hang nor miss a wake-up.
import { describe, expect, it } from "vitest";
import { createSignal } from "../shared/signal";

describe("createSignal", () => {
  it("resolves once the predicate holds after a notify, and at once if it already does", async () => {
    const signal = createSignal();
    let n = 0;
    await signal.until(() => true);
    const waiting = signal.until(() => n === 2);
    n = 1;
    signal.notify();
    n = 2;
    signal.notify();
    await waiting;
    expect(n).toBe(2);
  });

  it("times out naming what never came, instead of hanging until the test's own timeout", async () => {
    const signal = createSignal();
    await expect(
      signal.until(() => false, { timeoutMs: 30, what: "a step frame" })
    ).rejects.toThrow("Timed out waiting for a step frame.");
  });

  it("stops at once when waiting became pointless", async () => {
    const signal = createSignal();
    let closed = false;
    const waiting = signal.until(() => false, {
      stop: () => (closed ? "socket closed" : undefined)
    });
    closed = true;
    signal.notify();
    await expect(waiting).rejects.toThrow("socket closed");
  });
});
