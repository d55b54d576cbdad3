import { describe, expect, it } from "vitest";
import { calls, gate } from "../fixtures/environments";
import {
  err,
  inside,
  newResetSession,
  ok,
  snapshot,
  toolAction
} from "./session-helpers";

// The keys are the client's, as a header or a frame carries them: the object
// binds each to its operation's scope and a hash of the request's body.
describe("Idempotency-Key", () => {
  it("returns the stored response to a retry without running the tools again", async () => {
    const { stub } = await newResetSession();
    const action = toolAction("bump", { key: "idem-retry" });
    const first = ok(await stub.step({ action }, "k1"));
    const retry = ok(await stub.step({ action }, "k1"));
    expect(retry).toEqual(first);
    expect(calls.get("idem-retry")).toBe(1);
    expect(ok(await stub.status()).steps).toBe(1);
  });

  it("refuses the same key with a different body (422) and changes nothing", async () => {
    const { stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("bump") }, "k2"));
    const before = await snapshot(stub);
    expect(
      err(
        await stub.step({ action: toolAction("bump", { key: "other" }) }, "k2")
      ).code
    ).toBe("idempotency_mismatch");
    expect(await snapshot(stub)).toEqual(before);
  });

  it("makes a retry that arrives while the first is running wait for it", async () => {
    const { id, stub } = await newResetSession();
    const action = toolAction("wait", { gate: `idem-${id}` });
    const first = stub.step({ action }, "k3");
    await inside(stub, () => gate(`idem-${id}`).started);
    const second = stub.step({ action }, "k3");
    await inside(stub, () => gate(`idem-${id}`).open());
    const [a, b] = await Promise.all([first, second]);
    expect(ok(b)).toEqual(ok(a));
    expect(ok(await stub.status()).steps).toBe(1);
  });

  it("scopes keys per route", async () => {
    const { stub } = await newResetSession();
    ok(await stub.step({ action: toolAction("bump") }, "shared"));
    const direct = ok(
      await stub.call({ tool: "bump", arguments: {} }, "shared")
    );
    expect(direct.content).toBe("count=2");
  });
});
