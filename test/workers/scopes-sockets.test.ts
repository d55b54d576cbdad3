// A socket holds its token's scope for its whole life: a frame beyond the
// scope is refused and changes nothing, an expiry reached while it is open
// closes it with 4401, and so does a revocation of its scope, while
// sockets of other scopes stay open.
import { describe, expect, it } from "vitest";
import { toolCalls } from "../../src/messages/build";
import { createResetSession, json, send, withScope } from "./helpers";
import { openSocket } from "./ws-helpers";

const bump = toolCalls({ name: "incr", arguments: {} });

const snapshotOf = async (sessionId: string, token: string) => {
  const sock = await openSocket(sessionId, token);
  await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
  return sock;
};

describe("scoped sockets", () => {
  it("an observe socket sees steps but may not take one", async () => {
    const s = await createResetSession();
    const viewer = await withScope(s, "observe");
    const sock = await snapshotOf(s.session_id, viewer.token);
    sock.send({ type: "step", id: "s1", action: bump });
    const frames = await sock.until((f) => f.some((x) => x.id === "s1"));
    expect(frames.find((f) => f.id === "s1")).toMatchObject({
      type: "reply",
      ok: false,
      error: { code: "forbidden", details: { scope: "act" } }
    });
    // The session did not step, and the viewer still sees the owner's steps.
    expect(
      await json<{ steps: number }>(await s.call("")).then((b) => b.steps)
    ).toBe(0);
    await s.call("/step", send("POST", { action: bump }));
    await sock.until((f) => f.some((x) => x.type === "step"));
    sock.ws.close();
  });

  it("closes a socket with 4401 when its token expires while it is open", async () => {
    const s = await createResetSession();
    const brief = await withScope(s, "observe", 1);
    const sock = await snapshotOf(s.session_id, brief.token);
    const closed = await sock.closed;
    expect(closed.code).toBe(4401);
    expect(closed.reason).toContain("expired");
  });

  it("closes the sockets of a revoked scope with 4401 and leaves the others open", async () => {
    const s = await createResetSession();
    const viewer = await withScope(s, "observe");
    const agent = await withScope(s, "act");
    const watching = await snapshotOf(s.session_id, viewer.token);
    const acting = await snapshotOf(s.session_id, agent.token);
    const revoked = await s.call(
      "/tokens/revoke",
      send("POST", { scope: "observe" })
    );
    expect(revoked.status).toBe(200);
    expect((await watching.closed).code).toBe(4401);
    // The agent's socket still steps, and its reply arrives.
    acting.send({ type: "step", id: "a1", action: bump });
    const frames = await acting.until((f) => f.some((x) => x.id === "a1"));
    expect(frames.find((f) => f.id === "a1")).toMatchObject({ ok: true });
    // A revoked token opens no socket; a new observe token does.
    const again = await openSocket(s.session_id, viewer.token);
    expect((await again.closed).code).toBe(4401);
    const fresh = await withScope(s, "observe");
    (await snapshotOf(s.session_id, fresh.token)).ws.close();
    acting.ws.close();
  });

  it("revoking control hands the caller a fresh control token", async () => {
    const s = await createResetSession();
    const res = await s.call(
      "/tokens/revoke",
      send("POST", { scope: "control" })
    );
    const body = await json<{ token: string; revoked_before: string }>(res);
    expect(res.status).toBe(200);
    expect((await s.call("")).status).toBe(401);
    const renewed = await s.call("", {
      headers: { Authorization: `Bearer ${body.token}` }
    });
    expect(renewed.status).toBe(200);
  });
});
