// The inspector as a first-time user meets it: a session made from the
// form shows its id whole, leaves its id and token in the attach fields,
// and numbers each event once, by its seq.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { type Browser, launch } from "./browser";
import { createFromForm } from "./inspector-page";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

describe("a new session in the inspector", () => {
  for (const width of [1400, 1000]) {
    it(`shows the whole id at ${width} px wide, nothing clipped or scrolled`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      const created = await createFromForm(page, base);
      const id = page.locator("#session-id");
      expect(await id.innerText()).toBe(created.session_id);
      const box = await id.evaluate((el) => ({
        scrollWidth: el.scrollWidth,
        clientWidth: el.clientWidth,
        scrollHeight: el.scrollHeight,
        clientHeight: el.clientHeight,
        right: el.getBoundingClientRect().right,
        sectionRight: el.closest("section")!.getBoundingClientRect().right
      }));
      // All of it is laid out inside its box, and the box inside its panel.
      expect(box.scrollWidth).toBeLessThanOrEqual(box.clientWidth);
      expect(box.scrollHeight).toBeLessThanOrEqual(box.clientHeight);
      expect(box.right).toBeLessThanOrEqual(box.sectionRight);
      await page.close();
    });
  }

  it("leaves its id and token in the attach fields, and they attach another page", async () => {
    const page = await browser.context.newPage();
    const created = await createFromForm(page, base);
    expect(await page.inputValue("#attach-id")).toBe(created.session_id);
    expect(await page.inputValue("#attach-token")).toBe(created.token);

    // Copied from those fields into a fresh page, they open the same session.
    const other = await browser.context.newPage();
    await other.goto(base);
    await other.fill("#attach-id", await page.inputValue("#attach-id"));
    await other.fill("#attach-token", await page.inputValue("#attach-token"));
    await other.click("#attach");
    await expect
      .poll(() => other.locator("#session-id").innerText())
      .toBe(created.session_id);

    // A fork opens the copy: the fields follow the session shown.
    await page.click("#reset");
    await expect.poll(() => page.locator("#episode").innerText()).toBe("1");
    await page.click("#fork");
    await page.locator("#forked-from").waitFor();
    const copy = await page.locator("#session-id").innerText();
    expect(copy).not.toBe(created.session_id);
    expect(await page.inputValue("#attach-id")).toBe(copy);
    expect(await page.inputValue("#attach-token")).toBe(
      await page.locator("#session-token").textContent()
    );
    await other.close();
    await page.close();
  });

  it("numbers each event once, by its seq", async () => {
    const page = await browser.context.newPage();
    await createFromForm(page, base);
    await page.click("#reset");
    await page.selectOption("#tool", "incr");
    await page.click("#step");
    await expect.poll(() => page.locator("#steps").innerText()).toBe("1");
    const rows = page.locator("#timeline li");
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    const shown = await rows.evaluateAll((items) =>
      items.map((li) => ({
        seq: li.dataset.seq,
        text: (li as HTMLElement).innerText,
        // A list counter drawn beside the row is a second number.
        marker: getComputedStyle(li).listStyleType,
        display: getComputedStyle(li).display
      }))
    );
    for (const row of shown) {
      expect(row.text.startsWith(`#${row.seq} `)).toBe(true);
      expect(row.display === "list-item" && row.marker !== "none").toBe(false);
    }
    await page.close();
  });
});
