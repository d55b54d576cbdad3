// The inspector's transcript, where an assistant turn reads as tool calls
// with their arguments and each tool answer is linked to its call.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {} from "../node/global-setup";
import {
  attachInspector,
  create,
  lastCallId,
  reset,
  type Session,
  step
} from "./api-session";
import { type Browser, launch } from "./browser";

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const attach = (s: Session) => attachInspector(browser, s);

describe("the inspector's transcript", () => {
  it("shows an assistant turn as tool calls with their arguments, and each tool answer linked to its call", async () => {
    const s = await create("calculator");
    await reset(s);
    const page = await attach(s);
    const markup = "<b>bold</b>";
    await step(
      s,
      ["calculator", { expression: "6 * 7", note: { why: ["check", 1] } }],
      ["calculator", JSON.stringify({ expression: markup })]
    );
    const turn = page.locator('#transcript li[data-role="assistant"]');
    await expect.poll(() => turn.locator(".tool-call").count()).toBe(2);
    const calls = await turn.locator(".tool-call").evaluateAll((els) =>
      els.map((el) => ({
        name: el.querySelector(".call-name")?.textContent,
        args: Array.from(el.querySelectorAll("dt"), (dt) => [
          dt.textContent,
          dt.nextElementSibling?.textContent
        ])
      }))
    );
    expect(calls).toEqual([
      {
        name: "calculator",
        args: [
          ["expression", "6 * 7"],
          ["note", '{"why":["check",1]}']
        ]
      },
      { name: "calculator", args: [["expression", markup]] }
    ]);
    // The model's text stays text: no element is made from it.
    expect(await page.locator("#transcript b").count()).toBe(0);
    expect(await turn.innerText()).not.toContain('"function"');

    // Tool answers name their call; the failed one is marked.
    const answers = page.locator('#transcript li[data-role="tool"]');
    await expect.poll(() => answers.count()).toBe(2);
    expect(await answers.nth(0).innerText()).toContain("42");
    expect(await answers.nth(0).locator(".error-tag").count()).toBe(0);
    expect(await answers.nth(1).locator(".error-tag").innerText()).toBe(
      "error"
    );
    const link = answers.nth(1).locator("a.call-id");
    expect(await link.innerText()).toBe(`↩ c${lastCallId()}`);
    const target = (await link.getAttribute("href"))!.slice(1);
    expect(await page.locator(`[id="${target}"] .call-name`).innerText()).toBe(
      "calculator"
    );
    expect(
      await page.locator(`[id="${target}"]`).getAttribute("data-call-id")
    ).toBe(`c${lastCallId()}`);
    await link.click();
    await expect
      .poll(() => page.locator(`[id="${target}"]`).getAttribute("class"))
      .toContain("flash");

    // The event timeline says the same in one line.
    const row = page.locator('#timeline li[data-type="message"]', {
      hasText: "assistant"
    });
    expect(await row.innerText()).toContain(
      'assistant → calculator(expression="6 * 7", note={"why":["check",1]}) → calculator(expression="<b>bold</b>")'
    );
    await page.close();
  });

  it("shows a multi-agent transcript as one agent sees it, or every agent's", async () => {
    const s = await create("tictactoe");
    await reset(s);
    const page = await attach(s);
    // x marks 5, then o marks 1: each whoever's turn it is.
    await step(s, ["mark", { cell: 5 }]);
    await step(s, ["mark", { cell: 1 }]);
    const rows = page.locator("#transcript li");
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(8);
    expect(
      await page
        .locator('#transcript li[data-agent="o"] strong')
        .first()
        .innerText()
    ).toMatch(/ · o$/);
    const select = page.locator("#view-as");
    expect(await page.locator("#view-as-label").isVisible()).toBe(true);
    await select.selectOption("x");
    const shown = () =>
      rows.evaluateAll((els) =>
        els
          .filter((el) => !(el as HTMLElement).hidden)
          .map((el) => (el as HTMLElement).dataset.agent ?? "")
      );
    await expect.poll(shown).not.toContain("o");
    expect((await shown()).length).toBeGreaterThan(0);
    expect(await page.locator("#transcript").innerText()).not.toContain(
      "You are o"
    );
    // A message arriving live is filtered too.
    await step(s, ["mark", { cell: 9 }]);
    await expect.poll(async () => (await shown()).length).toBeGreaterThan(4);
    await expect.poll(shown).not.toContain("o");
    await select.selectOption("");
    await expect.poll(shown).toContain("o");
    await page.close();
  });
});
