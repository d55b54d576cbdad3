// The inspector as the front page pictures it: on `npm start`, the server a
// newcomer runs, not on the test worker with its fixtures. The picture in
// docs/ is this test's screenshot (UPDATE_DOCS_SCREENSHOT=1 copies it), so
// it lists the environments `npm start` serves and no others.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStart, npmStart } from "../node/helpers/npm-start";
import { type Browser, launch } from "./browser";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const artifacts = join(root, "test", "browser", "artifacts");

let server: NpmStart;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([npmStart(), launch()]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the inspector under npm start", () => {
  it("lists what npm start serves, and steps a counter session to its end", async () => {
    const listing = (await (
      await fetch(`${server.base}/v1/environments`)
    ).json()) as { environments: { name: string }[] };
    const page = await browser.context.newPage();
    const text = (selector: string) => page.locator(selector).innerText();
    await page.goto(`${server.base}/`);
    await page.locator('[data-env="counter"]').waitFor();
    expect(
      await page
        .locator("[data-env]")
        .evaluateAll((items) =>
          items.map((item) => (item as HTMLElement).dataset.env)
        )
    ).toEqual(listing.environments.map((e) => e.name));

    await page.selectOption("#create-env", "counter");
    await page.click("#create");
    await page.locator("#current").waitFor();
    await page.click("#reset");
    // Waits as long as a loaded machine may need: a wait, not a bound.
    const wait = { timeout: 10_000 };
    await expect.poll(() => text("#episode"), wait).toBe("1");
    await page.selectOption("#tool", "incr");
    for (let step = 1; step <= 10; step++) {
      await page.click("#step");
      await expect
        .poll(async () => Number(await text("#steps")), wait)
        .toBe(step);
    }
    expect(await text("#reward")).toBe("1");
    expect(await text("#done")).toBe("yes");
    expect(await text("#state")).toContain('"count": 10');
    // The timeline ends with the last step's event before the picture.
    await expect
      .poll(() => page.locator("#timeline li").last().innerText(), wait)
      .toContain('"done":true');

    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, "inspector-npm-start.png");
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === "1")
      copyFileSync(shot, join(root, "docs", "inspector.png"));
    await page.close();
  });
});
