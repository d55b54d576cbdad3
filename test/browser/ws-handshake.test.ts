import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// Brings in the types of what the shared global setup provides.
import type {} from "../node/global-setup";
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

const created = async () => {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "counter" })
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { token: string; ws_url: string };
};

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
  it("opens with the token as a subprotocol and closes cleanly without a code", async () => {
    const s = await created();
    expect(
      await connect(s.ws_url, ["roost.v1", `roost.token.${s.token}`])
    ).toEqual({
      protocol: "roost.v1",
      first: "session.snapshot",
      code: 1000,
      wasClean: true
    });
  });

  it("opens with ?token= offering no protocol", async () => {
    const s = await created();
    expect(await connect(`${s.ws_url}?token=${s.token}`, [])).toEqual({
      protocol: "",
      first: "session.snapshot",
      code: 1000,
      wasClean: true
    });
  });

  it("opens offering only the token protocol", async () => {
    const s = await created();
    const offer = `roost.token.${s.token}`;
    expect(await connect(s.ws_url, [offer])).toMatchObject({
      protocol: offer,
      first: "session.snapshot",
      code: 1000
    });
  });

  it("selects roost.v1 among unrelated protocols", async () => {
    const s = await created();
    expect(
      await connect(s.ws_url, ["chat", "roost.v1", `roost.token.${s.token}`])
    ).toMatchObject({ protocol: "roost.v1", first: "session.snapshot" });
  });

  it("shows the page 4401 without credentials, offering nothing or roost.v1", async () => {
    const s = await created();
    expect(await connect(s.ws_url, [])).toMatchObject({
      protocol: "",
      code: 4401
    });
    expect(await connect(s.ws_url, ["roost.v1"])).toMatchObject({
      protocol: "roost.v1",
      code: 4401
    });
  });

  it("shows the page 4403 for a wrong token in either form", async () => {
    const s = await created();
    const other = await created();
    expect(
      await connect(s.ws_url, ["roost.v1", `roost.token.${other.token}`])
    ).toMatchObject({ protocol: "roost.v1", code: 4403 });
    expect(await connect(`${s.ws_url}?token=${other.token}`, [])).toMatchObject(
      { protocol: "", code: 4403 }
    );
  });
});
