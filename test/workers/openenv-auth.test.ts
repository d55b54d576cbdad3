// OpenEnv's client sends no headers: with ROOST_API_KEYS set, its socket
// needs a connect URL minted with a key, and is otherwise refused in band
// (an error frame answering its first request, then a 44xx close).
import { describe, expect, it } from "vitest";
import { signingKeys } from "../../src/http/secrets";
import { signConnect, verifyConnect } from "../../src/layers/openenv/connect";
import { createSignal } from "../shared/signal";
import { withEnv } from "./helpers";

const keyed = withEnv({ ROOST_API_KEYS: "key-a" });

/** Opens an OpenEnv socket on `path` and sends one reset, as EnvClient.reset does. */
const firstReply = async (path: string) => {
  const res = await keyed(path, { headers: { Upgrade: "websocket" } });
  expect(res.status).toBe(101);
  expect(res.headers.get("Sec-WebSocket-Protocol")).toBeNull();
  const ws = res.webSocket!;
  ws.accept();
  const signal = createSignal();
  const frames: { type: string; data: Record<string, unknown> }[] = [];
  let closed: number | undefined;
  ws.addEventListener("message", (e) => {
    frames.push(JSON.parse(e.data as string));
    signal.notify();
  });
  ws.addEventListener("close", (e) => {
    closed = e.code;
    signal.notify();
  });
  ws.send('{"type": "reset", "data": {}}');
  await signal.until(() => frames.length > 0, { what: "the first reply" });
  return {
    reply: frames[0]!,
    closed: async () => {
      await signal.until(() => closed !== undefined, { what: "a close" });
      return closed;
    },
    ws
  };
};

const mint = (name: string, headers: Record<string, string>) =>
  keyed(`/v1/environments/${name}/openenv/connect`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: "{}"
  });

describe("OpenEnv with API keys", () => {
  it("refuses a socket without a credential: an error frame naming the way in, then 4401", async () => {
    const { reply, closed } = await firstReply(
      "/v1/environments/counter/openenv/ws"
    );
    expect(reply).toMatchObject({
      type: "error",
      data: {
        code: "SESSION_ERROR",
        message: expect.stringContaining("/openenv/connect")
      }
    });
    expect(await closed()).toBe(4401);
  });

  it("mints connect URLs only with a key; one admits to its own environment alone", async () => {
    expect((await mint("counter", {})).status).toBe(401);
    const minted = await mint("counter", { Authorization: "Bearer key-a" });
    expect(minted.status).toBe(200);
    const { base_url } = (await minted.json()) as { base_url: string };
    const path = new URL(base_url).pathname;
    const admitted = await firstReply(`${path}/ws`);
    expect(admitted.reply.type).toBe("observation");
    admitted.ws.close(1000);
    const elsewhere = await firstReply(
      `${path.replace("/counter/", "/story/")}/ws`
    );
    expect(elsewhere.reply.data.code).toBe("SESSION_ERROR");
    expect(await elsewhere.closed()).toBe(4403);
  });

  it("signs grants that expire and cannot be altered", async () => {
    const keys = await signingKeys({ ROOST_DEV: "1" } as never);
    const grant = { environment: "counter", expiresAt: 2_000, keep: false };
    const credential = await signConnect(keys, grant);
    expect(await verifyConnect(keys, "counter", credential, 1_999)).toEqual(
      grant
    );
    expect(await verifyConnect(keys, "counter", credential, 2_000)).toBe(
      undefined
    );
    expect(await verifyConnect(keys, "story", credential, 1_000)).toBe(
      undefined
    );
    const kept = credential.replace(".0.", ".1.");
    expect(await verifyConnect(keys, "counter", kept, 1_000)).toBe(undefined);
  });
});
