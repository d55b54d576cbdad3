// The chat example as a first-time user meets it: a suggested question is
// sent by one click, each new Result table comes into view by itself, and
// the page says which model answers, and when it is the scripted one.
// The last describe runs `npm start` as a fresh user would, with no model
// configured (the shared test server has a fake OpenAI one).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { spawnNpmStart, stopNpmStart } from "../node/helpers/npm-start";
import { testPort } from "../node/helpers/test-port";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

const open = async (url: string, size = { width: 1280, height: 800 }) => {
  const page = await browser.context.newPage();
  await page.setViewportSize(size);
  await page.goto(url);
  await page.waitForSelector("#status");
  return page;
};

const done = async (page: Page, runs: number) => {
  await expect
    .poll(
      () => page.locator('.message.assistant[data-state="completed"]').count(),
      {
        timeout: 30_000
      }
    )
    .toBe(runs);
  await expect.poll(() => page.textContent("#status")).toBe("ready");
};

/** Whether all of the newest element matching `selector` lies inside the visible part of its scrolling box. */
const newestShown = (page: Page, selector: string, box: string) =>
  page.evaluate(
    ([selector, box]) => {
      const all = document.querySelectorAll(selector!);
      const el = all[all.length - 1];
      const scroller = el?.closest(box!);
      if (!el || !scroller) return "missing";
      const r = el.getBoundingClientRect();
      const b = scroller.getBoundingClientRect();
      // A pixel of slack: boxes sit at fractional positions.
      const inWindow = r.top >= -1 && r.bottom <= innerHeight + 1;
      return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && inWindow
        ? "shown"
        : `hidden: ${Math.round(r.top)}–${Math.round(r.bottom)} outside ${Math.round(b.top)}–${Math.round(b.bottom)}`;
    },
    [selector, box]
  );

describe("the chat example, first use", () => {
  it("sends a suggested question on one click", async () => {
    const page = await open(`${base}/chat/?model=scripted`);
    const suggestion = page.locator(".suggestions button").first();
    const question = await suggestion.innerText();
    await suggestion.click();
    await expect
      .poll(() =>
        page.$$eval(".message.user .text", (e) => e.map((x) => x.textContent))
      )
      .toEqual([question]);
    await done(page, 1);
    expect(
      await page.locator(".message.assistant .text").last().textContent()
    ).toBe(`Here is what I found for "${question}", with counts per category.`);
    // The box is left empty for the next question.
    expect(await page.inputValue("#prompt")).toBe("");
    await page.close();
  });

  it("brings each new Result table and the newest message into view", async () => {
    const page = await open(`${base}/chat/?model=scripted`);
    for (const [n, question] of [
      "Which cat toys are rated 4.5 or higher?",
      "Any dog food?",
      "Which bird toys are cheap?"
    ].entries()) {
      // The reader had scrolled the side column back up to the tree.
      await page.$eval(".side", (el) => el.scrollTo({ top: 0 }));
      await page.fill("#prompt", question);
      await page.press("#prompt", "Enter");
      await done(page, n + 1);
      expect(await page.locator(".result").count()).toBe(2 * (n + 1));
      await expect
        .poll(() => newestShown(page, ".result", ".side"))
        .toBe("shown");
      await expect
        .poll(() => newestShown(page, ".message.assistant", ".messages"))
        .toBe("shown");
    }
    await page.close();
  });

  it("names the configured model that answers, and says when it is the scripted one", async () => {
    const page = await open(`${base}/chat/`);
    const note = page.locator("#model-note");
    expect(await note.innerText()).toBe("Model: openai");
    expect(await note.getAttribute("class")).not.toContain("scripted");

    const scripted = await open(`${base}/chat/?model=scripted`);
    const text = await scripted.locator("#model-note").innerText();
    expect(text).toContain("Scripted model (picked with ?model=scripted)");
    expect(text).toContain("answers are canned");
    expect(text).toContain("Without ?model= this page uses openai");
    expect(await scripted.locator("#model-note").isVisible()).toBe(true);
    await scripted.close();
    await page.close();
  });
});

describe("the chat example under a fresh npm start (no model configured)", () => {
  let child: ChildProcess | undefined;
  let url = "";
  let dir = "";

  beforeAll(async () => {
    const port = await testPort();
    dir = mkdtempSync(join(tmpdir(), "roost-chat-fresh-"));
    // An empty env file in place of any .dev.vars: no model settings at all.
    const none = join(dir, "none.env");
    writeFileSync(none, "");
    const started = spawnNpmStart(
      [
        "--persist-to",
        join(dir, "state"),
        "--env-file",
        none,
        "--log-level",
        "warn"
      ],
      port,
      await testPort()
    );
    child = started.child;
    await started.listening;
    url = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (child) await stopNpmStart(child);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 }
  ]) {
    it(`says the scripted model answers and how to configure a real one, at ${size.width} px`, async () => {
      const page = await open(`${url}/chat/`, size);
      const note = page.locator("#model-note");
      const text = await note.innerText();
      expect(text).toContain(
        "Scripted model (no model configured): answers are canned."
      );
      expect(text).toContain("ROOST_MODEL_BASE_URL");
      expect(text).toContain(".dev.vars");
      // On screen as the page opens, before anything is asked.
      const box = await note.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y + box!.height).toBeLessThanOrEqual(size.height);
      // And it is so: the answer is the script's.
      await page.locator(".suggestions button").first().click();
      await done(page, 1);
      expect(
        await page.locator(".message.assistant .text").last().textContent()
      ).toMatch(/^Here is what I found for /);
      await page.close();
    });
  }
});
