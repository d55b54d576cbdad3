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
