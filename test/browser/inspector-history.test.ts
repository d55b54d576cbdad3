// The inspector opened on a session that already has steps, in Chromium
// against wrangler dev: the timeline shows the retained history (so an idle
// session is not blank), its past steps can be branched from, and a step
// taken after the page opened shows once.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type {} from "../node/global-setup";
import { paced, post, type Session } from "./api-session";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

let calls = 0;
const step = (s: Session, name: string, args: object) =>
  post(
    `/v1/sessions/${s.session_id}/step`,
    {
      action: {
        tool_calls: [
          {
            id: `h_${++calls}`,
            type: "function",
            function: { name, arguments: JSON.stringify(args) }
          }
        ]
      }
    },
    s.token
  );

describe("the inspector's history", () => {
  it("shows the steps taken before the page opened, branchable, and follows on without repeats", async () => {
    const s = await post<Session>("/v1/sessions", { environment: "branchy" });
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    await step(s, "put", { key: "a", n: 1 });
    await step(s, "put", { key: "b", n: 2 });
    await step(s, "note", { text: "three" });

    const page = await browser.context.newPage();
    await page.goto(base);
    await page.fill("#attach-id", s.session_id);
    await page.fill("#attach-token", s.token);
    await page.click("#attach");
    await page.locator("#current").waitFor();
    await expect
      .poll(() => page.locator("#conn").innerText(), { timeout: 20_000 })
      .toBe("live: open");

    // The session is idle: everything shown comes from its log.
    const buttons = page.locator("#timeline button.branch");
    await expect.poll(() => buttons.count(), { timeout: 20_000 }).toBe(3);
    expect(await page.locator('#timeline li[data-type="reset"]').count()).toBe(
      1
    );

    // A step after the page opened arrives once, after the history.
    await step(s, "put", { key: "d", n: 4 });
    await expect.poll(() => buttons.count(), { timeout: 20_000 }).toBe(4);
    const seqs = await page
      .locator("#timeline li[data-seq]")
      .evaluateAll((rows) => rows.map((r) => Number(r.dataset.seq)));
    expect(seqs.length).toBeGreaterThan(4);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const steps = await buttons.evaluateAll((b) =>
      b.map((el) => (el as HTMLElement).dataset.step)
    );
    expect(steps).toEqual(["1", "2", "3", "4"]);

    // A past step, read from the log, forks like a live one.
    await page.locator('#timeline button.branch[data-step="2"]').click();
    const from = page.locator("#forked-from");
    await from.waitFor();
    expect(await from.innerText()).toContain("right after step 2");
    expect(await from.innerText()).toContain(s.session_id);
    await expect.poll(() => page.locator("#steps").innerText()).toBe("2");
    await expect.poll(() => page.locator("#store").innerText()).toContain("b");
    expect(await page.locator("#store").innerText()).not.toContain('"n": 4');
    await page.close();
  }, 90_000);

  it("shows the newest 500 seqs of a long log, and the rest on load earlier", async () => {
    const s = await post<Session>("/v1/sessions", { environment: "branchy" });
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    const lastSeq = async () => {
      const res = await fetch(
        `${base}/v1/sessions/${s.session_id}/events?after=0&limit=10000`,
        { headers: { authorization: `Bearer ${s.token}` } }
      );
      return ((await res.json()) as { next_after: number }).next_after;
    };
    let steps = 0;
    while ((await lastSeq()) <= 600) {
      for (let i = 0; i < 20; i++) {
        steps++;
        await paced(s, "/step", {
          action: {
            tool_calls: [
              {
                id: `h_${++calls}`,
                type: "function",
                function: {
                  name: "put",
                  arguments: JSON.stringify({ key: `k${steps}`, n: steps })
                }
              }
            ]
          }
        });
      }
    }
    const last = await lastSeq();

    const page = await browser.context.newPage();
    await page.goto(base);
    await page.fill("#attach-id", s.session_id);
    await page.fill("#attach-token", s.token);
    await page.click("#attach");
    const rows = page.locator("#timeline li[data-seq]");
    const seqs = () =>
      rows.evaluateAll((r) => r.map((el) => Number(el.dataset.seq)));
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(500);
    expect((await seqs())[0]).toBe(last - 499);
    // The newest step is there, with its button; the reset (seq 1) is not yet.
    await page
      .locator(`#timeline button.branch[data-step="${steps}"]`)
      .waitFor();
    expect(await page.locator('#timeline li[data-type="reset"]').count()).toBe(
      0
    );

    await page.click("#timeline li.earlier button");
    await expect
      .poll(() => page.locator('#timeline li[data-type="reset"]').count(), {
        timeout: 20_000
      })
      .toBe(1);
    const all = await seqs();
    expect(all).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(await page.locator("#timeline button.branch").count()).toBe(steps);
    // Seq 1 was reached: nothing older to load.
    await expect
      .poll(() => page.locator("#timeline li.earlier").count())
      .toBe(0);
    await page.close();
  }, 120_000);

  it("offers to branch only from the current episode's steps", async () => {
    const s = await post<Session>("/v1/sessions", { environment: "branchy" });
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    await step(s, "put", { key: "a", n: 1 });
    await step(s, "put", { key: "b", n: 2 });
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    await step(s, "put", { key: "c", n: 3 });

    const page = await browser.context.newPage();
    await page.goto(base);
    await page.fill("#attach-id", s.session_id);
    await page.fill("#attach-token", s.token);
    await page.click("#attach");
    const resets = page.locator('#timeline li[data-type="reset"]');
    await expect.poll(() => resets.count(), { timeout: 20_000 }).toBe(2);
    // Step 1 of the first episode is on screen, but a fork at step 1 is
    // the current episode's.
    expect(await page.locator('#timeline li[data-type="step"]').count()).toBe(
      3
    );
    const buttons = page.locator("#timeline button.branch");
    expect(await buttons.count()).toBe(1);
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    await expect.poll(() => resets.count(), { timeout: 20_000 }).toBe(3);
    expect(await buttons.count()).toBe(0);
    await page.close();
  }, 90_000);
});
