// The chat example opened from a link with a scoped token: an act token
// chats (the answer streams, Results fill in) but is not offered a fork;
// an observe token shows the session read-only, its box disabled with a
// note. The session is made over HTTP with its control token, as a
// backend handing a browser a token would.
import type { Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createClient, type RoostSession } from "../../src/client/index";
import type {} from "../node/global-setup";
import { type Browser, launch, watchedPage } from "./browser";

const base = inject("baseUrl");
const client = createClient({ baseUrl: base });
let browser: Browser;
let session: RoostSession;

beforeAll(async () => {
  browser = await launch();
  session = await client.createSession({ environment: "catalog" });
  await session.reset();
});

afterAll(async () => {
  await browser?.close();
  await session?.delete().catch(() => undefined);
});

/** Opens the app on the session with `token` and records every refusal. */
const openWith = async (token: string) => {
  const { page, errors } = await watchedPage(browser);
  const refused: string[] = [];
  page.on("response", (r: Response) => {
    if (r.status() === 401 || r.status() === 403)
      refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  const hash = new URLSearchParams({ session: session.id, token });
  await page.goto(`${base}/chat/?model=scripted#${hash}`);
  await page.waitForSelector("#status");
  return { page, errors, refused };
};

const texts = (page: Page) =>
  page.$$eval(".message.assistant .text", (e) => e.map((x) => x.textContent));

const tools = (page: Page) =>
  page.$$eval(".result", (cards) =>
    cards.map((card) => card.getAttribute("data-tool"))
  );

describe("the chat app with a scoped token", () => {
  it("chats with an act token, with no fork offered", async () => {
    const { token } = await session.mintToken({ scope: "act" });
    const { page, errors, refused } = await openWith(token);
    expect(await page.textContent("#session-id")).toBe(session.id.slice(0, 12));
    expect(await page.locator("#fork").count()).toBe(0);
    expect(await page.textContent("#access")).toBe("chat link: no fork");
    expect(await page.locator("#prompt").isDisabled()).toBe(false);

    await page.fill("#prompt", "Which cat toys are rated 4.5 or higher?");
    await page.press("#prompt", "Enter");
    await page.waitForSelector('.message.assistant[data-state="completed"]');
    await page.waitForFunction(
      () => document.querySelector("#status")?.textContent === "ready"
    );
    expect((await texts(page)).at(-1)).toBe(
      'Here is what I found for "Which cat toys are rated 4.5 or higher?", with counts per category.'
    );
    expect(await tools(page)).toEqual(["query", "aggregate"]);
    expect(await page.locator(".result tbody tr").count()).toBeGreaterThan(0);
    await expect
      .poll(() => page.textContent('[data-key="last_query"]'))
      .toContain("products");
    // The run was the session's: its owner sees it.
    expect((await session.state()).last_query).toBeDefined();
    // The URL keeps the link's token (a reload chats on), not another.
    expect(
      new URLSearchParams(new URL(page.url()).hash.slice(1)).get("token")
    ).toBe(token);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the session read-only with an observe token: the box disabled, with a note", async () => {
    const { token } = await session.mintToken({ scope: "observe" });
    const { page, errors, refused } = await openWith(token);
    await page.locator("#locked").waitFor();
    expect(await page.textContent("#locked")).toMatch(/^Read-only link/);
    expect(await page.locator("#prompt").isDisabled()).toBe(true);
    expect(await page.locator("#send").isDisabled()).toBe(true);
    const suggestions = page.locator(".suggestion");
    expect(await suggestions.count()).toBeGreaterThan(0);
    for (const suggestion of await suggestions.all())
      expect(await suggestion.isDisabled()).toBe(true);
    expect(await page.locator("#fork").count()).toBe(0);
    expect(await page.textContent("#access")).toBe("read-only link");
    // It watches: the state the act token's run left, live.
    await expect
      .poll(() => page.textContent('[data-key="last_query"]'))
      .toContain("products");
    // A chat sent with this token anyway is refused, naming act.
    const sent = await fetch(`${base}/v1/sessions/${session.id}/chat`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json"
      },
      body: JSON.stringify({
        id: `chat-${session.id}`,
        messages: [
          { id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }
        ]
      })
    });
    expect(sent.status).toBe(403);
    expect(await sent.json()).toMatchObject({
      error: { code: "forbidden", details: { scope: "act" } }
    });
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says a revoked link no longer opens its session, rather than making a new one", async () => {
    const { token } = await session.mintToken({ scope: "observe" });
    await session.revokeTokens("observe");
    const { page } = await watchedPage(browser);
    const hash = new URLSearchParams({ session: session.id, token });
    await page.goto(`${base}/chat/#${hash}`);
    const alert = page.locator(".boot.error");
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      "this link no longer opens its session"
    );
    await page.close();
  });
});
