/**
 * @module The giant session in Chromium: the inspector and the chat app
 * open it as a user would, and must show where it stands without an error
 * and without reading all of it first.
 */

import type { Page } from "playwright-core";
import { type Browser, watchedPage } from "../browser/browser";
import type { SessionRef } from "./wire";

/** Rows of a list on screen, by a data attribute. */
const rowsOf = (page: Page, selector: string, attribute: string) =>
  page
    .locator(selector)
    .evaluateAll(
      (rows, name) => rows.map((r) => (r as HTMLElement).dataset[name]),
      attribute
    );

export interface Opened {
  errors: string[];
  /** Milliseconds from navigation to the first content the check waits for. */
  ms: number;
  shown: (string | undefined)[];
}

/** The inspector attached to the session: its newest transcript rows. */
export const openInspector = async (
  browser: Browser,
  baseUrl: string,
  s: SessionRef,
  lastIndex: number
): Promise<Opened> => {
  const { page, errors } = await watchedPage(browser);
  const started = performance.now();
  await page.goto(baseUrl);
  await page.fill("#attach-id", s.id);
  await page.fill("#attach-token", s.token);
  await page.click("#attach");
  await page
    .locator(`#transcript li[data-index="${lastIndex}"]`)
    .waitFor({ timeout: 120_000 });
  const ms = performance.now() - started;
  // The older rows arrive page by page after the newest: read the list once
  // the load is over, when the "older messages" button is offered again.
  await page
    .locator("#older:not([disabled]):not([hidden])")
    .waitFor({ timeout: 120_000 });
  const shown = await rowsOf(page, "#transcript li", "index");
  await page.close();
  return { errors, ms, shown };
};

/** The chat app on the session: its header and an open connection. */
export const openChatApp = async (
  browser: Browser,
  baseUrl: string,
  s: SessionRef
): Promise<Opened> => {
  const { page, errors } = await watchedPage(browser);
  const started = performance.now();
  const hash = new URLSearchParams({ session: s.id, token: s.token });
  await page.goto(`${baseUrl}/chat/#${hash}`);
  const connection = page.locator(".panel-head [data-connection]");
  await connection.filter({ hasText: "open" }).waitFor({ timeout: 120_000 });
  const ms = performance.now() - started;
  const shown = [await page.locator("#session-id").innerText()];
  await page.close();
  return { errors, ms, shown };
};
