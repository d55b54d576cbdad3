import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { closes } from "../fixtures/environments";
import {
  err,
  inside,
  newResetSession,
  ok,
  toolAction
} from "./session-helpers";

// Aviary's Environment.close(): an environment's onClose runs once when its
// session ends, deleted or expired, and never keeps a session alive.
const closesOf = (label: string) => closes.filter((c) => c.label === label);

const session = async (label: string) => {
  const s = await newResetSession("closer", { label });
  ok(await s.stub.step({ action: toolAction("bump") }));
  return s;
};

describe("onClose", () => {
  it("runs once on delete, seeing the last committed episode", async () => {
    const label = `deleted-${crypto.randomUUID()}`;
    const { stub } = await session(label);
    ok(await stub.destroy());
    expect(closesOf(label)).toEqual([{ label, reason: "deleted", count: 1 }]);
    expect(err(await stub.status()).code).toBe("not_found");
    expect(err(await stub.destroy()).code).toBe("not_found");
    expect(closesOf(label)).toHaveLength(1);
  });

  it("runs once when the idle TTL expires the session", async () => {
    const label = `expired-${crypto.randomUUID()}`;
    const { stub } = await session(label);
    await inside(stub, (instance) => {
      instance.runtime.now = () => Date.now() + 25 * 60 * 60 * 1000;
    });
    expect(await runDurableObjectAlarm(stub.raw)).toBe(true);
    expect(closesOf(label)).toEqual([{ label, reason: "expired", count: 1 }]);
    expect(err(await stub.status()).code).toBe("not_found");
  });

  it("deletes the session even when onClose throws or never finishes", async () => {
    for (const label of ["broken", "stuck"]) {
      const before = closesOf(label).length;
      const { stub } = await session(label);
      ok(await stub.destroy());
      expect(closesOf(label)).toHaveLength(before + 1);
      expect(err(await stub.status()).code).toBe("not_found");
    }
  });

  it("does not run again for a session whose hook already ran", async () => {
    const label = `once-${crypto.randomUUID()}`;
    const { stub } = await session(label);
    // As if an earlier delete ran the hook and the object died before
    // deleting the rows: the retry deletes without a second call.
    await inside(stub, (_i, state) => {
      state.storage.sql.exec(
        "INSERT INTO meta (key, value) VALUES ('closed', '1')"
      );
    });
    ok(await stub.destroy());
    expect(closesOf(label)).toEqual([]);
    expect(err(await stub.status()).code).toBe("not_found");
  });
});
