import { describe, expect, it } from "vitest";
import type { Decision, DecisionModel } from "../tree/types";
import {
  call,
  expectedDecision,
  recordSleeps,
  request,
  textRequest
} from "./fixtures.case";
import { ModelError } from "./model-error";
import { backoffDelay, withRetries } from "./retry";

// Which model failures are retried, and how long between tries.
const flaky = (failures: unknown[]) => {
  let calls = 0;
  const model: DecisionModel = {
    name: "flaky",
    async decide() {
      calls++;
      const next = failures.shift();
      if (next !== undefined) throw next;
      return expectedDecision;
    },
    async respond() {
      calls++;
      const next = failures.shift();
      if (next !== undefined) throw next;
      return "done";
    }
  };
  return { model, calls: () => calls };
};

describe("withRetries", () => {
  it("retries retryable errors with exponential backoff", async () => {
    const { model, calls } = flaky([
      new ModelError("overloaded", true, 503),
      new ModelError("bad output", true),
      new ModelError("timeout", true)
    ]);
    const { sleeps, sleep } = recordSleeps();
    const retried = withRetries(model, {
      attempts: 4,
      baseDelayMs: 100,
      sleep
    });
    expect(retried.name).toBe("flaky");
    await expect(retried.decide(request(), call)).resolves.toEqual(
      expectedDecision
    );
    expect(calls()).toBe(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it("caps the wait and scales it by injected jitter", () => {
    expect(backoffDelay(5, { baseDelayMs: 100, maxDelayMs: 500 })).toBe(500);
    expect(backoffDelay(2, { baseDelayMs: 100, random: () => 0 })).toBe(100);
    expect(backoffDelay(2, { baseDelayMs: 100, random: () => 0.5 })).toBe(150);
  });

  it("gives up after the last attempt with the last error", async () => {
    const last = new ModelError("still down", true, 500);
    const { model, calls } = flaky([
      new ModelError("down", true, 500),
      new ModelError("down", true, 500),
      last
    ]);
    const { sleeps, sleep } = recordSleeps();
    await expect(
      withRetries(model, { sleep }).respond(textRequest, call)
    ).rejects.toBe(last);
    expect(calls()).toBe(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it("does not retry non-retryable ModelErrors or other errors", async () => {
    for (const error of [
      new ModelError("bad key", false, 401),
      new TypeError("bug")
    ]) {
      const { model, calls } = flaky([error]);
      const { sleeps, sleep } = recordSleeps();
      await expect(
        withRetries(model, { sleep }).decide(request(), call)
      ).rejects.toBe(error);
      expect(calls()).toBe(1);
      expect(sleeps).toEqual([]);
    }
  });

  it("times out a hanging call, aborts its signal and retries it", async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const model: DecisionModel = {
      name: "slow",
      decide(_request, options) {
        calls++;
        if (options.signal) signals.push(options.signal);
        // The first call never settles, as if the model ignored its signal.
        return calls === 1
          ? new Promise<Decision>(() => {})
          : Promise.resolve(expectedDecision);
      },
      respond: async () => ""
    };
    const { sleep } = recordSleeps();
    await expect(
      withRetries(model, { timeoutMs: 20, sleep }).decide(request(), call)
    ).resolves.toEqual(expectedDecision);
    expect(calls).toBe(2);
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[1]?.aborted).toBe(false);
  });

  it("stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const model: DecisionModel = {
      name: "hang",
      decide: () => new Promise<Decision>(() => {}),
      respond: async () => ""
    };
    const pending = withRetries(model).decide(request(), {
      decisionIndex: 0,
      signal: controller.signal
    });
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });
});

/** A Workers AI binding that answers from a script and records its inputs. */
