import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import {
  createSession,
  expected,
  HANDSHAKE_CASES
} from "../shared/handshake-cases";

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

const created = () => createSession(base);

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
  for (const c of HANDSHAKE_CASES)
    it(c.name, async () => {
      const [s, other] = [await created(), await created()];
      const { url, protocols } = c.offer(s, other);
      const out = await connect(url, protocols);
      expect({ ...out, first: out.first }).toEqual(expected(c, s));
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
