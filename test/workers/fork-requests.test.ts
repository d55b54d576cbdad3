// Forking as a request: retries and Idempotency-Keys answered with the
// same copies, the API key, a copy's probation, bad counts refused, and
// the same fork over the session socket.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forkSession } from "../../src/http/fork-driver";
import type { ForkResponse } from "../../src/protocol";
import { SERVER_GRANT } from "../../src/protocol/scopes";
import {
  asSession,
  fork,
  hooked,
  midEpisode,
  rows,
  snapshotsLeft,
  view
} from "./fork-helpers";
import { authed, createSession, errorOf, json, send, withEnv } from "./helpers";
import { stubOf } from "./session-helpers";
import { openSocket } from "./ws-helpers";

describe("fork: the request", () => {
  it("answers a retry that comes while the fork is still being made with 503, then with the same copies", async () => {
    const source = await midEpisode();
    const key = { "Idempotency-Key": `fork-${crypto.randomUUID()}` };
    const stub = stubOf(source.session_id);
    let retried: Response | undefined;
    const slow = hooked(stub, async (name) => {
      if (name === "forkChunk" && retried === undefined)
        retried = await fork(source, { count: 2 }, key);
    });
    const first = await forkSession(
      env,
      slow,
      env.SESSIONS.idFromString(source.session_id),
      2,
      "http://127.0.0.1:8787/",
      SERVER_GRANT,
      key["Idempotency-Key"]
    );
    expect(retried!.status).toBe(503);
    expect((await errorOf(retried!)).code).toBe("unavailable");
    const again = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    expect(again.sessions.map((c) => c.session_id)).toEqual(
      first.sessions.map((c) => c.session_id)
    );
  });

  it("needs an API key to fork where making sessions does", async () => {
    const keyed = withEnv({ ROOST_API_KEYS: "key-a" });
    const source = await createSession({ environment: "lab" }, keyed, {
      Authorization: "Bearer key-a"
    });
    const path = `/v1/sessions/${source.session_id}/fork`;
    const withToken = await keyed(path, send("POST", {}, authed(source.token)));
    expect(withToken.status).toBe(403);
    const withKey = await keyed(
      path,
      send("POST", {}, authed(source.token, { "X-API-Key": "key-a" }))
    );
    expect(withKey.status).toBe(201);
    const asBearer = await keyed(path, send("POST", {}, authed("key-a")));
    expect(asBearer.status).toBe(201);
  });

  it("puts a copy on probation until its first use, like a session nobody asked for", async () => {
    const source = await midEpisode();
    const [copy] = (await json<ForkResponse>(await fork(source, {}))).sessions;
    const probation = () =>
      rows(copy!.session_id, "SELECT key FROM meta WHERE key = 'awaiting_use'");
    expect(await probation()).toEqual([{ key: "awaiting_use" }]);
    expect((await asSession(copy!).call("")).status).toBe(200);
    expect(await probation()).toEqual([]);
  });

  it("answers a retry with the same Idempotency-Key with the same copies", async () => {
    const source = await midEpisode();
    const key = { "Idempotency-Key": `fork-${crypto.randomUUID()}` };
    const first = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    const again = await json<ForkResponse>(
      await fork(source, { count: 2 }, key)
    );
    expect(again).toEqual(first);
    const other = await fork(source, { count: 3 }, key);
    expect(other.status).toBe(422);
    expect((await errorOf(other)).code).toBe("idempotency_mismatch");
  });

  it("refuses a bad count and changes nothing", async () => {
    const source = await midEpisode();
    const before = await view(source);
    for (const body of [
      { count: 0 },
      { count: 65 },
      { count: 1.5 },
      { n: 1 }
    ]) {
      const res = await fork(source, body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_request");
    }
    expect(await view(source)).toEqual(before);
    expect(await snapshotsLeft(source.session_id)).toEqual([]);
  });

  it("forks over the session socket, like the route", async () => {
    const source = await midEpisode();
    const sock = await openSocket(source.session_id, source.token);
    await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
    sock.send({ type: "fork", id: "f1", count: 2 });
    const frames = await sock.until((f) => f.some((x) => x.id === "f1"));
    const reply = frames.find((x) => x.id === "f1") as unknown as {
      ok: boolean;
      value: ForkResponse;
    };
    expect(reply.ok).toBe(true);
    expect(reply.value.sessions).toHaveLength(2);
    expect(reply.value.sessions[0]!.ws_url).toBe(
      `ws://127.0.0.1:8787/v1/sessions/${reply.value.sessions[0]!.session_id}/ws`
    );
    const copy = asSession(reply.value.sessions[1]!);
    expect(await view(copy)).toEqual(await view(source));
    sock.send({ type: "fork", id: "f2", count: 99 });
    const bad = await sock.until((f) => f.some((x) => x.id === "f2"));
    expect(bad.find((x) => x.id === "f2")).toMatchObject({
      type: "protocol.error"
    });
    sock.ws.close();
  });
});
