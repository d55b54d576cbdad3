import { describe, expect, it } from "vitest";
import { calls, gate } from "../fixtures/environments";
import { call, err, inside, newSession, ok, snapshot } from "./session-helpers";

const key = (k: string, hash = "h1") => ({ scope: "step", key: k, hash });

describe("Idempotency-Key", () => {
  it("returns the stored response to a retry without running the tools again", async () => {
    const { stub } = await newSession();
    ok(await stub.reset({}));
    const action = call("bump", { key: "idem-retry" });
    const first = ok(await stub.step(action, key("k1")));
    const retry = ok(await stub.step(action, key("k1")));
    expect(retry).toEqual(first);
    expect(calls.get("idem-retry")).toBe(1);
    expect(ok(await stub.status()).steps).toBe(1);
  });

  it("refuses the same key with a different body (422) and changes nothing", async () => {
    const { stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("bump"), key("k2", "body-a")));
    const before = await snapshot(stub);
    expect(err(await stub.step(call("bump"), key("k2", "body-b"))).code).toBe(
      "idempotency_mismatch"
    );
    expect(await snapshot(stub)).toEqual(before);
  });

  it("makes a retry that arrives while the first is running wait for it", async () => {
    const { id, stub } = await newSession();
    ok(await stub.reset({}));
    const action = call("wait", { gate: `idem-${id}` });
    const first = stub.step(action, key("k3"));
    await inside(stub, () => gate(`idem-${id}`).started);
    const second = stub.step(action, key("k3"));
    await inside(stub, () => gate(`idem-${id}`).open());
    const [a, b] = await Promise.all([first, second]);
    expect(ok(b)).toEqual(ok(a));
    expect(ok(await stub.status()).steps).toBe(1);
  });

  it("scopes keys per route", async () => {
    const { stub } = await newSession();
    ok(await stub.reset({}));
    ok(await stub.step(call("bump"), key("shared")));
    const direct = ok(
      await stub.callTool(
        { tool: "bump", arguments: {} },
        { scope: "tools/bump", key: "shared", hash: "h1" }
      )
    );
    expect(direct.content).toBe("count=2");
  });
});
