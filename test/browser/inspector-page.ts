/** @module The inspector driven as a user drives it: a session created from its form, and started. */
import type { Page } from "playwright-core";
import { expect } from "vitest";

/** Creates a counter session from the form; answers what the API answered. */
export const createFromForm = async (page: Page, base: string) => {
  await page.goto(base);
  await page.locator('[data-env="counter"]').waitFor();
  await page.selectOption("#create-env", "counter");
  const [response] = await Promise.all([
    page.waitForResponse(
      (r) =>
        r.url() === `${base}/v1/sessions` && r.request().method() === "POST"
    ),
    page.click("#create")
  ]);
  expect(response.status()).toBe(201);
  const created = (await response.json()) as {
    session_id: string;
    token: string;
  };
  await page.locator("#current").waitFor();
  return created;
};

/** The same, and its first episode started with the Reset button. */
export const createAndReset = async (page: Page, base: string) => {
  const created = await createFromForm(page, base);
  await page.click("#reset");
  await expect.poll(() => page.locator("#episode").innerText()).toBe("1");
  return created;
};
