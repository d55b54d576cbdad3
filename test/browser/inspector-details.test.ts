// The inspector's first-hour details, each as a newcomer met it: what shows
// before a session exists, the create form for environments with and
// without a dataset, wrapping, the transcript's tool calls, the favicon and
// the hint that a new session needs a Reset; and the Fork button.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** A page on the inspector whose environments have loaded. */
const openPage = async (width = 1400) => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  await page.goto(base);
  await page.locator('[data-env="counter"]').waitFor();
  return page;
};

const create = async (page: Page, environment: string) => {
  await page.selectOption("#create-env", environment);
  await page.click("#create");
  await page.locator("#current").waitFor();
};

describe("the inspector's details", () => {
  it("shows no session panels before a session exists", async () => {
    const page = await openPage();
    for (const panel of ["#live", "#act", "#current"])
      expect(await page.locator(panel).isVisible(), panel).toBe(false);
    await create(page, "counter");
    for (const panel of ["#live", "#act", "#current"])
      expect(await page.locator(panel).isVisible(), panel).toBe(true);
    await page.close();
  });

  it("counts tools in the singular and the plural", async () => {
    const page = await openPage();
    expect(await page.locator('[data-env="story"] summary').innerText()).toBe(
      "task schema and 1 tool"
    );
    expect(await page.locator('[data-env="counter"] summary').innerText()).toBe(
      "task schema and 2 tools"
    );
    await page.close();
  });

  it("offers a dataset index only with a dataset, and then needs no task fields", async () => {
    const page = await openPage();
    await page.selectOption("#create-env", "counter");
    expect(await page.locator("#task-index").isVisible()).toBe(false);
    await page.selectOption("#create-env", "calculator");
    expect(await page.locator("#task-index").isVisible()).toBe(true);
    expect(await page.locator("#task-form .req").first().isVisible()).toBe(
      true
    );
    await page.fill("#task-index", "3");
    // The form's required fields are gone; the dataset gives the task.
    expect(await page.locator("#task-form").isVisible()).toBe(false);
    expect(await page.locator("#dataset-hint").innerText()).toContain(
      "Task 3 of the dataset"
    );
    await page.click("#create");
    await page.locator("#current").waitFor();
    expect(await page.locator("#error").isVisible()).toBe(false);
    await page.click("#reset");
    await expect
      .poll(() => page.locator("#observations").innerText())
      .toContain("submit_answer");
    // Long observation lines wrap inside the panel instead of running off it.
    const overflow = await page
      .locator("#observations")
      .evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.close();
  });

  it("picks a split: each with its size, a generated one taking any seed", async () => {
    const page = await openPage();
    await page.selectOption("#create-env", "calculator");
    const options = await page.locator("#task-split option").allInnerTexts();
    expect(options).toEqual([
      "dataset (5000 tasks)",
      "train (4000 tasks)",
      "eval (1000 tasks)",
      "practice (generated: any seed)"
    ]);
    await page.selectOption("#task-split", "eval");
    expect(await page.locator("#task-index").getAttribute("max")).toBe("999");
    await page.selectOption("#task-split", "practice");
    expect(await page.locator("#task-index").getAttribute("max")).toBeNull();
    await page.fill("#task-index", "123456789");
    expect(await page.locator("#dataset-hint").innerText()).toContain(
      "Seed 123456789 of split practice"
    );
    await page.click("#create");
    await page.locator("#current").waitFor();
    expect(await page.locator("#error").isVisible()).toBe(false);
    await page.click("#reset");
    await expect
      .poll(() => page.locator("#observations").innerText())
      .toContain("submit_answer");
    await page.close();
  });

  // Once on one line scrolled sideways, which hid the id's end: now wrapped
  // inside its column, on lines of its own, never clipped.
  it("keeps the session id whole and on its own in a narrow window", async () => {
    const page = await openPage(900);
    await create(page, "counter");
    const id = page.locator("#session-id");
    const box = await id.evaluate((el) => ({
      overflow: el.scrollWidth - el.clientWidth,
      right: el.getBoundingClientRect().right,
      column: el.closest("section")!.getBoundingClientRect().right,
      display: getComputedStyle(el).display
    }));
    expect(box.overflow).toBeLessThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(box.column);
    // A block of its own: nothing else shares its lines.
    expect(box.display).toBe("block");
    expect(await id.textContent()).toMatch(/^\S+$/);
    expect(await page.locator("#session-env").innerText()).toBe("counter");
    await page.close();
  });

  it("says a new session needs a Reset before Step, and shows tool calls as calls", async () => {
    const page = await openPage();
    await create(page, "counter");
    const hint = page.locator("#step-hint");
    expect(await hint.isVisible()).toBe(true);
    expect(await hint.innerText()).toContain("Reset");
    await page.click("#reset");
    await expect.poll(() => hint.isVisible()).toBe(false);
    await page.selectOption("#tool", "incr");
    await page.click("#step");
    const assistant = page.locator('#transcript li[data-role="assistant"]');
    await assistant.first().waitFor();
    const call = assistant.first().locator(".tool-call");
    expect(await call.locator(".call-name").innerText()).toBe("incr");
    expect(await call.innerText()).toContain("no arguments");
    expect(await assistant.first().innerText()).not.toContain('"function"');
    await page.close();
  });

  it("forks the session with a button, opens the copy, and goes back to the source", async () => {
    const page = await openPage();
    await create(page, "counter");
    await page.click("#reset");
    await page.selectOption("#tool", "incr");
    await page.click("#step");
    await expect.poll(() => page.locator("#steps").innerText()).toBe("1");
    const source = await page.locator("#session-id").innerText();

    await page.click("#fork");
    const from = page.locator("#forked-from");
    await from.waitFor();
    const copy = await page.locator("#session-id").innerText();
    expect(copy).not.toBe(source);
    expect(await from.innerText()).toContain(source);
    expect(await page.locator("#steps").innerText()).toBe("1");
    await page.click("#step");
    await expect.poll(() => page.locator("#steps").innerText()).toBe("2");
    expect(await page.locator("#state").innerText()).toContain('"count": 2');

    await from.getByRole("button", { name: "Back to the source" }).click();
    await expect
      .poll(() => page.locator("#session-id").innerText())
      .toBe(source);
    expect(await page.locator("#steps").innerText()).toBe("1");
    expect(await from.isVisible()).toBe(false);
    await page.close();
  });

  it("declares a favicon the server has, so no request 404s", async () => {
    const page = await browser.context.newPage();
    const missing: string[] = [];
    page.on("response", (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await page.goto(base);
    await page.locator('[data-env="counter"]').waitFor();
    const href = await page
      .locator('link[rel="icon"]')
      .evaluate((el) => (el as HTMLLinkElement).href);
    const icon = await fetch(href);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    expect(missing).toEqual([]);
    await page.close();
  });
});
