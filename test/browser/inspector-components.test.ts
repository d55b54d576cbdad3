// The reward plot's components chart, over real sessions against wrangler
// dev: each rubric component of each step under the total, metrics (weight
// 0) told apart, failed and skipped components marked and counted, read from
// the event log and then live from the socket.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { create, reset, type Session, step } from "./api-session";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const start = async (environment: string) => {
  const s = await create(environment);
  await reset(s);
  return s;
};

const attach = async (s: Session) => {
  const page = await browser.context.newPage();
  await page.goto(base);
  await page.fill("#attach-id", s.session_id);
  await page.fill("#attach-token", s.token);
  await page.click("#attach");
  await page.locator("#current").waitFor();
  await expect
    .poll(() => page.locator("#conn").innerText(), { timeout: 20_000 })
    .toBe("live: open");
  return page;
};

const chart = 'svg[data-plot="components"]';
const legendItems = (page: Page) =>
  page.locator('[data-testid="component-legend"] li');
/** The legend as a user reads it: each entry's text, metrics flagged. */
const legend = (page: Page) =>
  legendItems(page).evaluateAll((items) =>
    items.map((li) => ({
      name: li.getAttribute("data-component"),
      metric: li.getAttribute("data-metric") === "true",
      text: li.textContent ?? ""
    }))
  );
const titles = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((els) =>
      els.map((el) => el.querySelector("title")?.textContent ?? "")
    );

describe("the inspector's reward components", () => {
  it("draws each component under the total, metrics dashed, failures and skips marked, from the log and live", async () => {
    // `graded`: answer = gate(one observation, it was right), length a
    // metric, judge always throws; the episode rubric's first_try a metric.
    const s = await start("graded");
    const first = await step(s, ["guess", { n: 3 }]);
    expect(first.reward_components).toBeDefined();
    // Step 1 is read from the event log when the page attaches.
    const page = await attach(s);
    await expect.poll(() => legendItems(page).count()).toBe(5);
    // Step 2 arrives live: two calls fail the gate's check (answer.score
    // skipped) and end the episode, whose rubric then reports.
    await step(s, ["guess", { n: 1 }], ["guess", { n: 7 }]);
    await expect.poll(() => legendItems(page).count()).toBe(8);
    const entries = await legend(page);
    expect(entries.map((e) => e.name)).toEqual([
      "answer",
      "answer.check",
      "answer.score",
      "length",
      "judge",
      "episode",
      "episode.solved",
      "episode.first_try"
    ]);
    expect(entries.filter((e) => e.metric).map((e) => e.name)).toEqual([
      "length",
      "episode.first_try"
    ]);
    const byName = new Map(entries.map((e) => [e.name, e.text]));
    expect(byName.get("length")).toBe("lengthmetric");
    expect(byName.get("judge")).toBe("judge2 failed");
    expect(byName.get("answer.score")).toBe("answer.score1 skipped");
    expect(byName.get("answer")).toBe("answer");

    // One line per component, a metric's dashed.
    expect(await page.locator(`${chart} .component-line`).count()).toBe(8);
    expect(await page.locator(`${chart} .component.metric`).count()).toBe(2);
    const dash = await page
      .locator(`${chart} g[data-component="length"] .component-line`)
      .evaluate((el) => getComputedStyle(el).strokeDasharray);
    expect(dash).not.toBe("none");
    const solid = await page
      .locator(`${chart} g[data-component="answer"] .component-line`)
      .evaluate((el) => getComputedStyle(el).strokeDasharray);
    expect(solid).toBe("none");
    expect(
      await titles(page, `${chart} g[data-component="length"] .component-dot`)
    ).toEqual([
      "length at step 1 of episode 1: 1 (metric)",
      "length at step 2 of episode 1: 2 (metric)"
    ]);
    expect(
      await titles(page, `${chart} g[data-component="judge"] .component-error`)
    ).toEqual([
      "judge at step 1 of episode 1 failed: no judge configured",
      "judge at step 2 of episode 1 failed: no judge configured"
    ]);
    expect(
      await titles(
        page,
        `${chart} g[data-component="answer.score"] .component-skipped`
      )
    ).toEqual(["answer.score at step 2 of episode 1: skipped"]);
    // A metric's 2 is drawn above its 1: the values are on the chart's scale.
    const ys = await page
      .locator(`${chart} g[data-component="length"] .component-dot`)
      .evaluateAll((els) => els.map((el) => Number(el.getAttribute("cy"))));
    expect(ys[1]).toBeLessThan(ys[0]!);
    expect(await page.locator(chart).getAttribute("aria-label")).toBe(
      "Reward components of 2 steps: answer, answer.check, answer.score, length (metric), judge, episode, episode.solved, episode.first_try (metric)"
    );
    await page.close();
  });

  it("shows no components chart for an environment without rubrics", async () => {
    const s = await start("counter");
    await step(s, ["incr", {}]);
    const page = await attach(s);
    await expect
      .poll(() => page.locator('svg[data-plot="steps"] .reward-dot').count())
      .toBe(1);
    expect(await page.locator(chart).isVisible()).toBe(false);
    expect(
      await page.locator('[data-testid="component-legend"]').isVisible()
    ).toBe(false);
    await page.close();
  });
});
