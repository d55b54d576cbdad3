import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";

// The handshake as the `ws` package checks it, which is stricter than the
// platform's test harness: a server may only select a protocol the client
// offered (RFC 6455 §4.1), and a client that offered some must get one back.
const base = inject("baseUrl");

interface Outcome {
  /** The selected protocol ("" when none), once open. */
  protocol?: string;
  /** The first frame's type, if one arrived before the close. */
  first?: string;
  /** The close code; 1006 means the handshake or the close failed. */
  code: number;
  /** The client's error, if the handshake failed. */
  error?: string;
}

const created = async () => {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "counter" })
  });
  expect(res.status).toBe(201);
  return (await res.json()) as {
    session_id: string;
    token: string;
    ws_url: string;
  };
};

/** Connects, waits for the first frame (then closes cleanly) or the server's close. */
const connect = (url: string, protocols: string[]): Promise<Outcome> =>
  new Promise((resolve) => {
    const ws = new WebSocket(url, protocols);
    const outcome: Partial<Outcome> = {};
    ws.once("open", () => {
      outcome.protocol = ws.protocol;
    });
    ws.once("message", (data) => {
      outcome.first = (JSON.parse(String(data)) as { type: string }).type;
      ws.close(1000, "done");
    });
    ws.once("error", (error) => {
      outcome.error = error.message;
    });
    ws.once("close", (code) => resolve({ ...outcome, code }));
  });

describe("WebSocket handshake with the ws client", () => {
  it("opens with the token as a subprotocol and selects roost.v1", async () => {
    const s = await created();
    const out = await connect(s.ws_url, ["roost.v1", `roost.token.${s.token}`]);
    expect(out).toEqual({
      protocol: "roost.v1",
      first: "session.snapshot",
      code: 1000
    });
  });

  it("opens with ?token= and selects no protocol", async () => {
    const s = await created();
    const out = await connect(`${s.ws_url}?token=${s.token}`, []);
    expect(out).toEqual({
      protocol: "",
      first: "session.snapshot",
      code: 1000
    });
  });

  it("opens when only the token protocol is offered, selecting it", async () => {
    const s = await created();
    const offer = `roost.token.${s.token}`;
    const out = await connect(s.ws_url, [offer]);
    expect(out).toEqual({
      protocol: offer,
      first: "session.snapshot",
      code: 1000
    });
  });

  it("selects roost.v1 among unrelated protocols", async () => {
    const s = await created();
    const out = await connect(s.ws_url, [
      "chat",
      "roost.v1",
      `roost.token.${s.token}`
    ]);
    expect(out.protocol).toBe("roost.v1");
    expect(out.first).toBe("session.snapshot");
  });

  it("closes 4401 without credentials, offering nothing", async () => {
    const s = await created();
    expect(await connect(s.ws_url, [])).toEqual({ protocol: "", code: 4401 });
  });

  it("closes 4401 without credentials, offering roost.v1", async () => {
    const s = await created();
    expect(await connect(s.ws_url, ["roost.v1"])).toEqual({
      protocol: "roost.v1",
      code: 4401
    });
  });

  it("closes 4403 for a wrong token in either form", async () => {
    const s = await created();
    const other = await created();
    expect(
      await connect(s.ws_url, ["roost.v1", `roost.token.${other.token}`])
    ).toEqual({ protocol: "roost.v1", code: 4403 });
    expect(await connect(`${s.ws_url}?token=${other.token}`, [])).toEqual({
      protocol: "",
      code: 4403
    });
    expect(await connect(`${s.ws_url}?token=v1.nope.x`, [])).toEqual({
      protocol: "",
      code: 4403
    });
  });

  it("closes 4404 for a deleted session, selecting the offered protocol", async () => {
    const s = await created();
    const res = await fetch(`${base}/v1/sessions/${s.session_id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${s.token}` }
    });
    expect(res.ok).toBe(true);
    expect(await connect(`${s.ws_url}?token=${s.token}`, [])).toEqual({
      protocol: "",
      code: 4404
    });
  });
});

describe("closing from the client", () => {
  /** Opens, waits for the snapshot, then closes with `close` and reports the close code the server answered. */
  const closeWith = async (close: (ws: WebSocket) => void) => {
    const s = await created();
    const ws = new WebSocket(s.ws_url, ["roost.v1", `roost.token.${s.token}`]);
    await new Promise<void>((resolve, reject) => {
      ws.once("message", () => resolve());
      ws.once("error", reject);
    });
    const closed = new Promise<number>((resolve) =>
      ws.once("close", (code) => resolve(code))
    );
    close(ws);
    return closed;
  };

  // A close without a code arrives as 1005, which may not be sent back; an
  // echo of it was dropped, so the client hung until its own timeout and
  // saw 1006. The server's answer must be a real close frame.
  it("answers close() without a code with a clean close", async () => {
    expect(await closeWith((ws) => ws.close())).toBe(1000);
  });

  it("echoes a code the client sent", async () => {
    expect(await closeWith((ws) => ws.close(4000, "bye"))).toBe(4000);
    expect(await closeWith((ws) => ws.close(1000, "bye"))).toBe(1000);
  });
});
