// The inspector's "branch from here" on a step of the timeline, in
// Chromium against wrangler dev: it forks the episode as it stood right
// after that step and opens the copy.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { post, type Session } from "./api-session";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const step = (s: Session, name: string, args: object) =>
  post(
    `/v1/sessions/${s.session_id}/step`,
    {
      action: {
        tool_calls: [
          {
            id: `c_${name}`,
            type: "function",
            function: { name, arguments: JSON.stringify(args) }
          }
        ]
      }
    },
    s.token
  );

describe("the inspector's branch from here", () => {
  it("forks the episode at a step of the timeline and opens the copy", async () => {
    const s = await post<Session>("/v1/sessions", { environment: "branchy" });
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    const page = await browser.context.newPage();
    await page.goto(base);
    await page.fill("#attach-id", s.session_id);
    await page.fill("#attach-token", s.token);
    await page.click("#attach");
    await page.locator("#current").waitFor();
    await expect
      .poll(() => page.locator("#conn").innerText(), { timeout: 20_000 })
      .toBe("live: open");
    // Steps the timeline sees arrive, each with its button.
    await step(s, "put", { key: "a", n: 1 });
    await step(s, "put", { key: "b", n: 2 });
    await step(s, "note", { text: "three" });
    const buttons = page.locator("#timeline button.branch");
    await expect.poll(() => buttons.count(), { timeout: 20_000 }).toBe(3);
    await page.locator('#timeline button.branch[data-step="1"]').click();

    const from = page.locator("#forked-from");
    await from.waitFor();
    expect(await from.innerText()).toContain("right after step 1");
    expect(await from.innerText()).toContain(s.session_id);
    await expect
      .poll(() => page.locator("#session-id").innerText())
      .not.toBe(s.session_id);
    await expect.poll(() => page.locator("#steps").innerText()).toBe("1");
    // The copy's store holds step 1's Result, not step 2's.
    const store = await page.locator("#store").innerText();
    expect(store).toContain("a");
    expect(store).not.toContain('"n": 2');
    await page.close();
  }, 60_000);
});
