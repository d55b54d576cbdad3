import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// Brings in the types of what the shared global setup provides.
import type {} from "../node/global-setup";
import {
  createSession,
  expected,
  HANDSHAKE_CASES
} from "../shared/handshake-cases";
import { type Browser, launch } from "./browser";

// The session WebSocket's handshake as Chromium checks it: a response that
// selects a protocol the page did not offer fails before any close code can
// be read, so every refusal must select only what was offered.
const base = inject("baseUrl");

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launch();
  page = await browser.context.newPage();
  await page.goto(`${base}/health`);
});

afterAll(async () => {
  await browser?.close();
});

interface Outcome {
  protocol?: string;
  first?: string;
  code: number;
  wasClean: boolean;
}

const created = () => createSession(base);

/** In the page: connect, read the first frame (then close without a code) or the server's close. */
const connect = (url: string, protocols: string[]): Promise<Outcome> =>
  page.evaluate(
    ([url, protocols]) =>
      new Promise<Outcome>((resolve) => {
        const ws = new WebSocket(url, protocols);
        const out: Partial<Outcome> = {};
        ws.addEventListener("open", () => {
          out.protocol = ws.protocol ?? "";
        });
        ws.addEventListener("message", (e) => {
          out.first ??= (JSON.parse(String(e.data)) as { type: string }).type;
          // As a closed tab or an unmounted component does: no code.
          ws.close();
        });
        ws.addEventListener("close", (e) =>
          resolve({ ...out, code: e.code, wasClean: e.wasClean })
        );
      }),
    [url, protocols] as const
  );

describe("WebSocket handshake in Chromium", () => {
  for (const c of HANDSHAKE_CASES)
    it(c.name, async () => {
      const [s, other] = [await created(), await created()];
      const { url, protocols } = c.offer(s, other);
      const { wasClean, ...out } = await connect(url, protocols);
      expect({ ...out, first: out.first }).toEqual(expected(c, s));
      // An open socket is closed without a code, as a closed tab or an
      // unmounted component does: it must end cleanly, at once.
      if (c.code === 1000) expect(wasClean).toBe(true);
    });
});

describe("one agent's token in Chromium", () => {
  it("opens a socket with an agent's token (act~x.…) as its subprotocol, and steps as that agent", async () => {
    const res = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ environment: "tictactoe" })
    });
    const s = (await res.json()) as {
      session_id: string;
      token: string;
      ws_url: string;
    };
    const api = (path: string, body: unknown) =>
      fetch(`${base}/v1/sessions/${s.session_id}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${s.token}`
        },
        body: JSON.stringify(body)
      });
    await api("/reset", {});
    const { token } = (await (
      await api("/tokens", { scope: "act", agent: "x" })
    ).json()) as { token: string };
    expect(token).toMatch(/^act~x\./);
    const url = s.ws_url;
    const seen = await page.evaluate(
      ([url, token]) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          const ws = new WebSocket(url, ["roost.v1", `roost.token.${token}`]);
          const out: Record<string, unknown> = {};
          ws.addEventListener("message", (e) => {
            const frame = JSON.parse(String(e.data)) as Record<string, unknown>;
            if (frame.type === "session.snapshot") {
              out.protocol = ws.protocol;
              out.keys = frame.keys;
              out.turn = (
                frame.state as { agents: { turn: string[] } }
              ).agents.turn;
              // x's turn, taken from the token: the frame names no agent.
              ws.send(
                JSON.stringify({
                  type: "step",
                  id: "s1",
                  action: {
                    tool_calls: [
                      {
                        id: "c1",
                        type: "function",
                        function: { name: "mark", arguments: '{"cell":5}' }
                      }
                    ]
                  }
                })
              );
            }
            if (frame.type === "reply" && frame.id === "s1") {
              out.ok = frame.ok;
              out.agent = (frame.value as { agent?: string }).agent;
              ws.close();
              resolve(out);
            }
          });
          ws.addEventListener("close", (e) =>
            reject(new Error(`closed ${e.code}`))
          );
        }),
      [url, token] as const
    );
    expect(seen).toEqual({
      protocol: "roost.v1",
      keys: [],
      turn: ["x"],
      ok: true,
      agent: "x"
    });
  });
});
