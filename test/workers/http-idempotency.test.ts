import { describe, expect, it } from "vitest";
import { action, createResetSession, errorOf, json, send } from "./helpers";

describe("Idempotency-Key", () => {
  it("returns the first response to a retry and 422 to the same key with another body", async () => {
    const session = await createResetSession();
    const headers = { "Idempotency-Key": "step-1" };
    const first = await session.call("/step", {
      ...send("POST", action("incr")),
      headers
    });
    const retry = await session.call("/step", {
      ...send("POST", action("incr")),
      headers
    });
    expect(retry.status).toBe(200);
    expect(await json(retry)).toEqual(await json(first));
    expect((await json(await session.call(""))).steps).toBe(1);
    const other = await session.call("/step", {
      ...send("POST", action("decr")),
      headers
    });
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe("idempotency_mismatch");
  });

  it("scopes keys per route", async () => {
    const session = await createResetSession();
    const headers = { "Idempotency-Key": "same" };
    const call1 = await session.call("/tools/incr", {
      ...send("POST", {}),
      headers
    });
    const call2 = await session.call("/tools/decr", {
      ...send("POST", {}),
      headers
    });
    expect(call1.status).toBe(200);
    expect(call2.status).toBe(200);
    expect((await json(call2)).content).toBe("counter=0");
  });

  it("answers a key that is empty, too long or not visible ASCII with 400", async () => {
    const session = await createResetSession();
    for (const key of ["a".repeat(256), "tab\there", "has space"]) {
      const res = await session.call("/step", {
        ...send("POST", action("incr")),
        headers: { "Idempotency-Key": key }
      });
      expect(res.status, key).toBe(400);
      expect((await errorOf(res)).details).toMatchObject({
        field: "Idempotency-Key"
      });
    }
  });
});
