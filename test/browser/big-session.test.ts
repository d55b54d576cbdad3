// The inspector and the chat app on a session larger than one read: store
// entries that pages of the default byte budget cut into parts, a
// transcript of 200 KB messages, an event log whose pages end on bytes, and
// a snapshot cut by a state of nearly a megabyte. Each page opens it
// without an error, shows its first content without reading everything,
// and reaches the rest by following the cursors, each item once.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import {
  bigCatalog,
  bigState,
  call,
  ENTRY_OBJECTS,
  MESSAGE_CHARS,
  messageText,
  objectId,
  type Session
} from "./big-session";
import { type Browser, launch, watchedPage } from "./browser";

const base = inject("baseUrl");
const artifacts = join(dirname(fileURLToPath(import.meta.url)), "artifacts");
const ENTRIES = 3;
const STEPS = 20;
/** The reset's user message, then an assistant message and a tool answer per step. */
const MESSAGES = 1 + 2 * STEPS;

let browser: Browser;
let big: Session;

beforeAll(async () => {
  browser = await launch();
  big = await bigCatalog(base, { entries: ENTRIES, steps: STEPS });
});

afterAll(async () => {
  await browser?.close();
});

const watched = () => watchedPage(browser);

const attach = async (s: Session) => {
  const watch = await watched();
  const { page } = watch;
  await page.goto(base);
  await page.fill("#attach-id", s.session_id);
  await page.fill("#attach-token", s.token);
  await page.click("#attach");
  await page.locator("#current").waitFor();
  return watch;
};

/** Transcript rows on screen: index and role, in page order. */
const shownMessages = (page: Page) =>
  page
    .locator("#transcript li")
    .evaluateAll((rows) =>
      rows.map((r) => [
        Number((r as HTMLElement).dataset.index),
        (r as HTMLElement).dataset.role
      ])
    );

const range = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => from + i);

describe("the inspector on a session larger than one read", () => {
  it("shows the newest messages first, then older ones on request, each once", async () => {
    const { page, errors } = await attach(big);
    const older = page.locator("#older");
    await page
      .locator(`#transcript li[data-index="${MESSAGES - 1}"]`)
      .waitFor();
    await expect.poll(() => older.isEnabled()).toBe(true);
    // The first view is the newest messages, not the whole transcript.
    const first = await shownMessages(page);
    expect(first.length).toBeGreaterThan(2);
    expect(first.length).toBeLessThan(MESSAGES);
    const from = first[0]![0] as number;
    expect(first.map(([i]) => i)).toEqual(range(from, MESSAGES));
    expect(await older.innerText()).toContain(`${from} before #${from}`);
    mkdirSync(artifacts, { recursive: true });
    await page
      .locator("#live")
      .screenshot({ path: join(artifacts, "inspector-big-session.png") });

    // A 200 000-character message is drawn cut; "show all" reads it whole.
    const newest = page.locator(`#transcript li[data-index="${MESSAGES - 2}"]`);
    const content = newest.locator(".content");
    expect((await content.innerText()).length).toBeLessThan(400);
    expect(await content.innerText()).toMatch(new RegExp(`^step ${STEPS}: y`));
    const showAll = newest.locator("button.show-all");
    expect(await showAll.innerText()).toBe(
      `show all ${MESSAGE_CHARS.toLocaleString("en")} characters`
    );
    await showAll.click();
    await expect
      .poll(async () => (await content.textContent())?.length)
      .toBe(MESSAGE_CHARS);
    expect(await content.textContent()).toBe(messageText(STEPS));
    await showAll.click();
    await expect
      .poll(async () => (await content.textContent())?.length)
      .toBeLessThan(400);

    // Older messages, a load at a time, until the first.
    while (await older.isVisible()) {
      const before = (await shownMessages(page)).length;
      await older.click();
      await expect
        .poll(async () => (await shownMessages(page)).length)
        .toBeGreaterThan(before);
      await expect.poll(() => older.isDisabled()).toBe(false);
    }
    const all = await shownMessages(page);
    expect(all.map(([i]) => i)).toEqual(range(0, MESSAGES));
    expect(all.map(([, role]) => role)).toEqual([
      "user",
      ...range(0, STEPS).flatMap(() => ["assistant", "tool"])
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pages the store to its end with each entry whole and no object twice", async () => {
    const { page, errors } = await attach(big);
    const key = page.locator('[data-key="bulk/rows"]');
    const total = ENTRIES * ENTRY_OBJECTS;
    await expect
      .poll(() => key.innerText())
      .toContain(`${ENTRIES} entries, ${total} objects`);
    await key.click();
    const pager = page.locator('[data-testid="page"]');
    const rows = page.locator('[data-testid="objects"] tbody tr');
    const seen: [string, string][] = [];
    for (let p = 0; p * 100 < total; p++) {
      if (p > 0) await page.click("text=next ›");
      await expect
        .poll(() => pager.innerText())
        .toBe(`rows ${p * 100 + 1}–${(p + 1) * 100} of ${total}`);
      // The entry column, and our id (the store adds its own _REF_ID).
      const cells = await rows.evaluateAll((trs) => {
        const heads = Array.from(
          trs[0]?.closest("table")?.querySelectorAll("th") ?? [],
          (th) => th.textContent
        );
        const id = heads.indexOf("id");
        return trs.map((tr) => [
          tr.children[0]?.textContent ?? "",
          tr.children[id]?.textContent ?? ""
        ]);
      });
      expect(cells).toHaveLength(100);
      seen.push(...(cells as [string, string][]));
    }
    expect(await page.locator("text=next ›").isDisabled()).toBe(true);
    // Every object once, in its own entry, in store order.
    expect(seen).toEqual(
      range(0, ENTRIES).flatMap((e) =>
        range(0, ENTRY_OBJECTS).map((o) => [String(e), objectId(e, o)])
      )
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it("plots every step though the event log's pages end on bytes", async () => {
    const { page, errors } = await attach(big);
    // The log's first page is cut by its byte budget, not by its count.
    const first = await call<{ events: unknown[]; truncated?: true }>(
      base,
      big,
      "GET",
      "/events?after=0"
    );
    expect(first.truncated).toBe(true);
    await expect
      .poll(() => page.locator('[data-testid="plot-summary"]').innerText())
      .toContain(`${STEPS} steps over 1 episode`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("reads the keys a cut snapshot left out, and draws a megabyte of state cut", async () => {
    const keys = 20;
    const s = await bigState(base, keys);
    // The frame is cut by the same rule as the socket's snapshot.
    const frame = await call<{
      info: { store_keys: unknown[] };
      truncated?: true;
    }>(base, s, "GET", "/frame");
    expect(frame.truncated).toBe(true);
    expect(frame.info.store_keys.length).toBeLessThan(keys);

    const { page, errors } = await attach(s);
    await expect
      .poll(() => page.locator('[data-key^="many/"]').count())
      .toBe(keys);
    const state = page.locator("#state");
    const more = page.locator("#state + button");
    await expect.poll(() => more.isVisible()).toBe(true);
    expect(await more.innerText()).toMatch(/^show all [\d,]+ characters$/);
    expect((await state.textContent())?.length).toBeLessThanOrEqual(20_001);
    await more.click();
    await expect
      .poll(async () => (await state.textContent())?.length)
      .toBeGreaterThan(1_047_000);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("the chat app on a session larger than one read", () => {
  it("opens it without an error and shows its state", async () => {
    const { page, errors } = await watched();
    const hash = new URLSearchParams({
      session: big.session_id,
      token: big.token
    });
    await page.goto(`${base}/chat/#${hash}`);
    await expect
      .poll(() => page.locator('#state [data-key="last_query"]').innerText())
      .toContain("products");
    expect(await page.locator("#session-id").innerText()).toBe(
      big.session_id.slice(0, 12)
    );
    await expect
      .poll(() => page.locator(".panel-head [data-connection]").innerText())
      .toBe("open");
    expect(errors).toEqual([]);
    await page.close();
  });
});
