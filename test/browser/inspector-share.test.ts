// The inspector's "share read-only link": the owner mints an observe token
// from the page, the link opens a second page on the session, which
// follows it live with every control that would change it disabled, and
// the token itself is refused a step.
import type { Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { type Browser, launch, watchedPage } from "./browser";
import { createAndReset } from "./inspector-page";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

const MUTATING = ["#reset", "#fork", "#step", "#call", "#send-raw"];

const incr = {
  action: {
    tool_calls: [
      {
        id: "api",
        type: "function",
        function: { name: "incr", arguments: "{}" }
      }
    ]
  }
};

const stepWith = (id: string, token: string) =>
  fetch(`${base}/v1/sessions/${id}/step`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json"
    },
    body: JSON.stringify(incr)
  });

describe("the inspector's read-only link", () => {
  it("opens the session live for a viewer who can change nothing", async () => {
    const { page: owner } = await watchedPage(browser);
    const created = await createAndReset(owner, base);
    // The owner's own token changes the session: nothing disabled, no note.
    expect(await owner.locator("#access-note").isHidden()).toBe(true);
    for (const selector of MUTATING)
      expect(await owner.locator(selector).isDisabled()).toBe(false);

    expect(await owner.inputValue("#share-ttl")).toBe("86400");
    await owner.click("#share");
    await owner.locator("#share-url").waitFor();
    const link = await owner.inputValue("#share-url");
    const url = new URL(link);
    const params = new URLSearchParams(url.hash.slice(1));
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/`);
    expect(params.get("session")).toBe(created.session_id);
    const token = params.get("token")!;
    expect(token.startsWith("observe.")).toBe(true);
    expect(await owner.locator("#share-expiry").innerText()).toMatch(
      /^Watches only, until /
    );

    const { page: viewer, errors } = await watchedPage(browser);
    const refused: string[] = [];
    viewer.on("response", (r: Response) => {
      if (r.status() === 401 || r.status() === 403)
        refused.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    await viewer.goto(link);
    await expect
      .poll(() => viewer.locator("#session-id").innerText())
      .toBe(created.session_id);
    await expect
      .poll(() => viewer.locator("#conn").innerText())
      .toBe("live: open");
    expect(await viewer.locator("#access-note").innerText()).toMatch(
      /^Read-only link/
    );
    for (const selector of MUTATING)
      expect(await viewer.locator(selector).isDisabled()).toBe(true);
    expect(await viewer.locator("#share-box").isHidden()).toBe(true);

    // A step on the owner's page streams into the viewer's.
    await owner.selectOption("#tool", "incr");
    await owner.click("#step");
    await expect.poll(() => viewer.locator("#steps").innerText()).toBe("1");
    await expect
      .poll(() => viewer.locator('#timeline li[data-type="step"]').count())
      .toBe(1);
    // And so does one over the API with the owner's token.
    expect((await stepWith(created.session_id, created.token)).status).toBe(
      200
    );
    await expect.poll(() => viewer.locator("#steps").innerText()).toBe("2");
    await expect
      .poll(() => viewer.locator('#timeline li[data-type="step"]').count())
      .toBe(2);
    await expect
      .poll(() => viewer.locator("#state").innerText())
      .toContain('"count": 2');

    // The link's token itself is refused a step, naming what it lacks.
    const denied = await stepWith(created.session_id, token);
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({
      error: { code: "forbidden", details: { scope: "act" } }
    });

    // A reload keeps the link's session, still read-only.
    await viewer.reload();
    await expect.poll(() => viewer.locator("#steps").innerText()).toBe("2");
    expect(await viewer.locator("#reset").isDisabled()).toBe(true);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("takes a shorter life from the select, and a link to another session replaces the one shown", async () => {
    const { page: owner } = await watchedPage(browser);
    const first = await createAndReset(owner, base);
    await owner.selectOption("#share-ttl", "3600");
    const before = Date.now();
    const [minted] = await Promise.all([
      owner.waitForResponse((r) => r.url().endsWith("/tokens")),
      owner.click("#share")
    ]);
    expect(minted.status()).toBe(201);
    const body = (await minted.json()) as { expires_at: string };
    // An hour from the server's clock, not the default day.
    expect(Date.parse(body.expires_at)).toBeLessThan(before + 2 * 3_600_000);
    const firstLink = await owner.inputValue("#share-url");

    // The owner's page opening a link goes read-only for it.
    const second = await createAndReset(owner, base);
    expect(await owner.locator("#share-url").isHidden()).toBe(true);
    await owner.goto(firstLink);
    await expect
      .poll(() => owner.locator("#session-id").innerText())
      .toBe(first.session_id);
    expect(await owner.locator("#step").isDisabled()).toBe(true);
    // Attaching with a control token again enables everything and drops the link.
    await owner.fill("#attach-id", second.session_id);
    await owner.fill("#attach-token", second.token);
    await owner.click("#attach");
    await expect
      .poll(() => owner.locator("#session-id").innerText())
      .toBe(second.session_id);
    expect(await owner.locator("#step").isDisabled()).toBe(false);
    expect(new URL(owner.url()).hash).toBe("");
  });
});
