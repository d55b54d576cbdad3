import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// Brings in the types of what the shared global setup provides.
import type {} from "../node/global-setup";
import { type Browser, launch } from "./browser";

// The inspector's decision tree: drawn from the environment listing, and
// followed through a run of the catalog's scripted model by its frames.

const base = inject("baseUrl");

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

describe("the inspector's decision tree", () => {
  it("draws the tree and highlights where a run is, keeping the last pass's path when it ends", async () => {
    const page = await browser.context.newPage();
    await page.goto(base);
    await page.locator('[data-env="catalog"]').waitFor();
    await page.selectOption("#create-env", "catalog");
    await page.click("#create");
    await page.locator("#current").waitFor();
    await page.click("#reset");
    await expect.poll(() => page.locator("#episode").innerText()).toBe("1");

    const tree = page.locator("#tree");
    await tree.locator('[data-node="root"]').waitFor();
    await tree.locator('[data-node="search"]').waitFor();
    for (const tool of ["query", "aggregate"]) {
      expect(
        await tree.locator(`[data-node="search"] [data-tool="${tool}"]`).count()
      ).toBe(1);
    }
    expect(
      await tree
        .locator('[data-node="root"] > ul > [data-tool="text_response"]')
        .count()
    ).toBe(1);

    // Every node the view says the run is at, in order: frames that come
    // in one batch change it several times before an observer runs, so the
    // history is read from each change's old value.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver((changes) => {
        for (const change of changes) {
          if (change.oldValue !== null) seen.push(change.oldValue);
        }
      }).observe(document.querySelector("#tree .tree-view")!, {
        attributes: true,
        attributeFilter: ["data-at"],
        attributeOldValue: true
      });
    });

    const id = await page.locator("#session-id").innerText();
    const token = (await page.locator("#session-token").textContent()) ?? "";
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json"
    };
    const started = await fetch(`${base}/v1/sessions/${id}/runs`, {
      method: "POST",
      headers,
      // The catalog's own scripted model, not the fake server's `openai`.
      body: JSON.stringify({
        prompt: "Which cat toys are rated 4.5 or higher?",
        model: "scripted"
      })
    });
    expect(started.status).toBe(202);
    const { run_id } = (await started.json()) as { run_id: string };
    const run = (await (
      await fetch(`${base}/v1/sessions/${id}/runs/${run_id}?wait=30`, {
        headers
      })
    ).json()) as { state: string; passes: number };
    expect(run).toMatchObject({ state: "completed", passes: 3 });

    await expect
      .poll(() => tree.locator(".tree-view").getAttribute("data-state"))
      .toBe("done");
    // Passes 1 and 2 went root → search, pass 3 answered at the root.
    expect(
      await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
    ).toEqual(["root", "search", "root", "search", "root"]);
    // The last pass's path stays: the root and its answer, nothing current.
    expect(await tree.locator(".current").count()).toBe(0);
    expect(
      await tree
        .locator(".on-path")
        .evaluateAll((els) =>
          els.map(
            (el) => el.getAttribute("data-node") ?? el.getAttribute("data-tool")
          )
        )
    ).toEqual(["root", "text_response"]);
    await page.close();
  });
});
