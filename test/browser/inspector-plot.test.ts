// The inspector's reward plot: each step's reward, the running return and
// each episode's return, from the log and then live. Its transcript is in
// inspector-transcript.test.ts.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import {
  attachInspector,
  create,
  incrPaced,
  paced,
  post,
  reset,
  type Session,
  step
} from "./api-session";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const artifacts = join(root, "test", "browser", "artifacts");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const attach = (s: Session) => attachInspector(browser, s);

const dots = (page: Page) => page.locator('svg[data-plot="steps"] .reward-dot');
const episodeDots = (page: Page) =>
  page.locator('svg[data-plot="episodes"] .episode-dot');
/** The numbers table: one row per episode, its cells as text. */
const returnsTable = (page: Page) =>
  page
    .locator('[data-testid="episode-returns"] tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => Array.from(r.children, (td) => td.textContent ?? ""))
    );
const titles = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((els) =>
      els.map((el) => el.querySelector("title")?.textContent ?? "")
    );

describe("the inspector's reward plot", () => {
  it("plots each step's reward and the return live, and each episode's return after a reset", async () => {
    const s = await create("counter", { target: 3 });
    await reset(s);
    const page = await attach(s);
    await expect
      .poll(() => page.locator('[data-testid="plot-summary"]').innerText())
      .toContain("0 steps over 1 episode");
    expect(await dots(page).count()).toBe(0);

    // Steps taken by another client arrive over the socket and are drawn.
    await step(s, ["incr", {}]);
    await expect.poll(() => dots(page).count()).toBe(1);
    await step(s, ["incr", {}]);
    await step(s, ["incr", {}]);
    await expect.poll(() => dots(page).count()).toBe(3);
    expect(await titles(page, 'svg[data-plot="steps"] .reward-dot')).toEqual([
      "step 1 of episode 1: reward 0, return 0",
      "step 2 of episode 1: reward 0, return 0",
      "step 3 of episode 1: reward 1, return 1, done"
    ]);
    // The dot of reward 1 sits higher than those of reward 0.
    const ys = await dots(page).evaluateAll((els) =>
      els.map((el) => Number(el.getAttribute("cy")))
    );
    expect(ys[2]).toBeLessThan(ys[0]!);
    expect(ys[0]).toBe(ys[1]);
    expect(
      await page.locator('svg[data-plot="steps"] .return-line').count()
    ).toBe(1);
    await expect
      .poll(() => returnsTable(page))
      .toEqual([["1", "3", "1", "ended"]]);

    // A reset starts episode 2; its steps continue the same chart.
    await reset(s);
    await expect.poll(() => episodeDots(page).count()).toBe(2);
    await step(s, ["incr", {}]);
    await step(s, ["decr", {}]);
    await expect.poll(() => dots(page).count()).toBe(5);
    await expect
      .poll(() => returnsTable(page))
      .toEqual([
        ["1", "3", "1", "ended"],
        ["2", "2", "0", "in progress"]
      ]);
    expect(
      await page.locator('svg[data-plot="steps"] .episode-edge').count()
    ).toBe(1);
    // The open episode is drawn hollow; the text alternative has the numbers.
    expect(
      await page.locator('svg[data-plot="episodes"] .episode-dot.open').count()
    ).toBe(1);
    expect(
      await page.locator('svg[data-plot="episodes"]').getAttribute("aria-label")
    ).toBe("Return of each of 2 episodes: episode 1: 1, episode 2: 0");

    // A page attached later reads the same steps from the event log.
    const later = await attach(s);
    await expect.poll(() => dots(later).count()).toBe(5);
    expect(await returnsTable(later)).toEqual(await returnsTable(page));
    await later.close();
    await page.close();
  });

  it("continues a fork's episode from the return the copy had, though its log starts at the copy", async () => {
    const s = await create("counter", { target: 3 });
    await reset(s);
    await step(s, ["incr", {}]);
    await step(s, ["incr", {}]);
    const forked = await post<{ sessions: Session[] }>(
      `/v1/sessions/${s.session_id}/fork`,
      { count: 1 },
      s.token
    );
    const copy = forked.sessions[0]!;
    const page = await attach(copy);
    await expect
      .poll(() => returnsTable(page))
      .toEqual([["1", "…2", "0", "in progress"]]);
    expect(await dots(page).count()).toBe(0);
    await step(copy, ["incr", {}]);
    await expect.poll(() => dots(page).count()).toBe(1);
    expect(await titles(page, 'svg[data-plot="steps"] .reward-dot')).toEqual([
      "step 3 of episode 1: reward 1, return 1, done"
    ]);
    await expect
      .poll(() => returnsTable(page))
      .toEqual([["1", "…3", "1", "ended"]]);
    await page.close();
  });

  it("plots the steps the log still holds when its oldest events were trimmed", async () => {
    const s = await create("counter", { target: 1_000_000 });
    await reset(s);
    // 60 calls a step make 242 events: 45 steps overflow the log's
    // retention, and the first steps' events are trimmed.
    const incrs = Array.from({ length: 60 }, (): [string, unknown] => [
      "incr",
      {}
    ]);
    for (let i = 0; i < 45; i++) await step(s, ...incrs);
    const gone = await fetch(
      `${base}/v1/sessions/${s.session_id}/events?after=0&limit=1`,
      { headers: { authorization: `Bearer ${s.token}` } }
    );
    expect(gone.status).toBe(410);
    const page = await attach(s);
    // The log is read oldest first: the last step in view means all are.
    await expect
      .poll(
        async () =>
          (await titles(page, 'svg[data-plot="steps"] .reward-dot')).at(-1),
        { timeout: 20_000 }
      )
      .toBe("step 45 of episode 1: reward 0, return 0");
    const shown = await dots(page).count();
    expect(
      await page.locator('[data-testid="plot-summary"]').innerText()
    ).toContain(`${shown} steps over 1 episode`);
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(45);
    // The newest steps, each once and in order, up to the session's last.
    expect(await titles(page, 'svg[data-plot="steps"] .reward-dot')).toEqual(
      Array.from(
        { length: shown },
        (_, i) => `step ${45 - shown + 1 + i} of episode 1: reward 0, return 0`
      )
    );
    // The episode is marked partial and ends at the session's step 45.
    expect(await returnsTable(page)).toEqual([
      ["1", "…45", "0", "in progress"]
    ]);
    expect(await page.locator("#error").isVisible()).toBe(false);
    await page.close();
  });

  it("draws more steps than the chart has pixels for as ranges, never more marks than it has room for", async () => {
    const s = await create("counter", { target: 1_000_000 });
    await reset(s);
    const total = 600;
    for (let done = 0; done < total; done += 20) {
      await Promise.all(Array.from({ length: 20 }, () => incrPaced(s)));
    }
    const page = await attach(s);
    // The narrowest the page lays out: the chart is about 550 px wide.
    await page.setViewportSize({ width: 900, height: 900 });
    const summary = page.locator('[data-testid="plot-summary"]');
    await expect
      .poll(() => summary.innerText(), { timeout: 20_000 })
      .toContain(`${total} steps over 1 episode`);
    const chart = page.locator('svg[data-plot="steps"]');
    const width = (await chart.boundingBox())!.width;
    const ranges = await chart.locator(".reward-range").count();
    expect(await chart.locator(".reward-dot").count()).toBe(0);
    expect(ranges).toBeGreaterThan(10);
    expect(ranges).toBeLessThanOrEqual(width / 3);
    // The ranges cover every step once.
    const covered = await titles(page, 'svg[data-plot="steps"] .reward-range');
    const counts = covered.map((t) => {
      const [, from, to] = /^steps (\d+)–(\d+)/.exec(t)!;
      return Number(to) - Number(from) + 1;
    });
    expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
    expect(await chart.getAttribute("aria-label")).toContain(
      `step ${total} of episode 1: reward 0, return 0`
    );
    await page.close();
  });

  it("draws more episodes than the chart has pixels for as ranges of their returns", async () => {
    const s = await create("counter", { target: 1 });
    const total = 250;
    // Two episodes in three reach the target (return 1); the third is
    // reset before any step (return 0).
    for (let e = 1; e <= total; e++) {
      await paced(s, "/reset", {});
      if (e % 3 !== 0) await incrPaced(s);
    }
    const page = await attach(s);
    await page.setViewportSize({ width: 900, height: 900 });
    await expect
      .poll(() => page.locator('[data-testid="plot-summary"]').innerText(), {
        timeout: 20_000
      })
      .toContain(`over ${total} episodes`);
    const chart = page.locator('svg[data-plot="episodes"]');
    const width = (await chart.boundingBox())!.width;
    expect(await chart.locator(".episode-dot").count()).toBe(0);
    const ranges = await titles(
      page,
      'svg[data-plot="episodes"] .episode-range'
    );
    expect(ranges.length).toBeGreaterThan(10);
    expect(ranges.length).toBeLessThanOrEqual(width / 3);
    // Each range names its episodes; together they are 1…250, each once.
    let next = 1;
    for (const t of ranges) {
      const [, from, to, min, max] =
        /^episodes (\d+)–(\d+): return (\S+) to (\S+),/.exec(t)!;
      expect(Number(from)).toBe(next);
      next = Number(to) + 1;
      // A range of three or more episodes holds both kinds.
      if (Number(to) - Number(from) >= 2)
        expect([min, max]).toEqual(["0", "1"]);
    }
    expect(next).toBe(total + 1);
    await page.close();
  });

  it("is readable over several episodes (the picture in docs/24-inspector.md)", async () => {
    const s = await create("counter", { target: 3 });
    const episodes: string[][] = [
      ["incr", "incr", "incr"],
      ["incr", "decr", "incr", "incr", "incr"],
      ["incr", "decr", "decr"],
      ["incr", "incr", "incr"],
      ["decr", "incr"]
    ];
    for (const tools of episodes) {
      await reset(s);
      for (const tool of tools) await step(s, [tool, {}]);
    }
    const page = await attach(s);
    await page.setViewportSize({ width: 1100, height: 900 });
    await expect.poll(() => dots(page).count()).toBe(16);
    await expect
      .poll(() => returnsTable(page))
      .toEqual([
        ["1", "3", "1", "ended"],
        ["2", "5", "1", "ended"],
        ["3", "3", "0", "left unfinished"],
        ["4", "3", "1", "ended"],
        ["5", "2", "0", "in progress"]
      ]);
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, "inspector-plot.png");
    // A margin around the plot, so its legend's first swatch is whole.
    const box = (await page.locator("#reward-plot").boundingBox())!;
    await page.screenshot({
      path: shot,
      fullPage: true,
      clip: {
        x: box.x - 12,
        y: box.y - 12,
        width: box.width + 24,
        height: box.height + 16
      }
    });
    if (process.env.UPDATE_DOCS_SCREENSHOT === "1") {
      copyFileSync(shot, join(root, "docs", "inspector-plot.png"));
    }
    await page.close();
  });
});
