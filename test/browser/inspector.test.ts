import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
// Brings in the types of what the shared global setup provides.
import type {} from "../node/global-setup";
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

const text = (page: Page, selector: string) =>
  page.locator(selector).innerText();

/** Creates a counter session through the page's form; answers its id and token. */
const createCounter = async (page: Page) => {
  await page.goto(base);
  await page.locator('[data-env="counter"]').waitFor();
  await page.selectOption("#create-env", "counter");
  await page.click("#create");
  await page.locator("#current").waitFor();
  const id = await text(page, "#session-id");
  const token = await page.locator("#session-token").textContent();
  await page.click("#reset");
  await expect.poll(() => text(page, "#episode")).toBe("1");
  return { id, token: token ?? "" };
};

const stepIncr = async (page: Page, times: number) => {
  await page.selectOption("#tool", "incr");
  for (let i = 1; i <= times; i++) {
    const before = Number(await text(page, "#steps"));
    await page.click("#step");
    await expect
      .poll(async () => Number(await text(page, "#steps")))
      .toBe(before + 1);
  }
};

/** POSTs JSON to the runtime directly, as another client would. */
const post = async <T>(path: string, body: unknown, token?: string) =>
  (await (
    await fetch(`${base}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {})
      },
      body: JSON.stringify(body)
    })
  ).json()) as T;

/** A new page attached to an existing session by id and token. */
const attach = async (id: string, token: string) => {
  const page = await browser.context.newPage();
  await page.goto(base);
  await page.fill("#attach-id", id);
  await page.fill("#attach-token", token);
  await page.click("#attach");
  return page;
};

const eventCount = async (s: { id: string; token: string }) => {
  const res = await fetch(`${base}/v1/sessions/${s.id}/events?after=0`, {
    headers: { authorization: `Bearer ${s.token}` }
  });
  return ((await res.json()) as { events: unknown[] }).events.length;
};

describe("the inspector", () => {
  it("lists the environments with their tool schemas", async () => {
    const page = await browser.context.newPage();
    await page.goto(base);
    const counter = page.locator('[data-env="counter"]');
    await counter.waitFor();
    await counter.locator("summary").click();
    await expect.poll(() => counter.innerText()).toContain("incr");
    for (const name of ["story", "calculator", "catalog"]) {
      expect(await page.locator(`[data-env="${name}"]`).count()).toBe(1);
    }
    await page.close();
  });

  it("creates a counter session, steps incr ten times through the form, and streams every frame", async () => {
    const page = await browser.context.newPage();
    const session = await createCounter(page);
    await stepIncr(page, 10);
    expect(await text(page, "#reward")).toBe("1");
    expect(await text(page, "#done")).toBe("yes");
    const logged = await eventCount(session);
    expect(logged).toBeGreaterThan(30);
    // Waits past the poll's 1 s default: the last frames can trail the
    // status on a loaded machine.
    await expect
      .poll(() => page.locator("#timeline li").count(), { timeout: 10_000 })
      .toBe(logged);
    // Every seq from 1 to the last, in order.
    const seqs = await page
      .locator("#timeline li")
      .evaluateAll((items) => items.map((li) => Number(li.dataset.seq)));
    expect(seqs).toEqual(Array.from({ length: logged }, (_, i) => i + 1));
    expect(await text(page, "#state")).toContain('"count": 10');
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, "inspector.png");
    // An artifact only: docs/inspector.png is taken under npm start
    // (inspector-picture.test.ts), whose environments a reader runs.
    await page.screenshot({ path: shot, fullPage: true });
    await page.close();
  });

  it("shows an API error inline with its code", async () => {
    const page = await browser.context.newPage();
    await createCounter(page);
    await page.click("details summary >> text=Raw action");
    await page.fill("#raw", '{"tool_calls": "nope"}');
    await page.click("#send-raw");
    await expect
      .poll(() => text(page, "#error"))
      .toMatch(/^400 invalid_request: /);
    await page.close();
  });

  it("updates two pages on one session live", async () => {
    const first = await browser.context.newPage();
    const session = await createCounter(first);
    const second = await attach(session.id, session.token);
    await expect.poll(() => text(second, "#episode")).toBe("1");
    await stepIncr(first, 3);
    await expect.poll(() => text(second, "#steps")).toBe("3");
    await expect.poll(() => text(second, "#state")).toContain('"count": 3');
    // The second page steps; the first sees it.
    await stepIncr(second, 1);
    await expect.poll(() => text(first, "#steps")).toBe("4");
    await first.close();
    await second.close();
  });

  it("reconnects by itself and resumes without a gap or a duplicate", async () => {
    const page = await browser.context.newPage();
    const urls: string[] = [];
    let first: WebSocketRoute | undefined;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first socket is dropped by the test; the next one is held back
    // until steps have happened that the page has not seen.
    await page.routeWebSocket(/\/ws(\?|$)/, async (ws) => {
      urls.push(ws.url());
      if (urls.length === 1) first = ws;
      else await released;
      ws.connectToServer();
    });
    const session = await createCounter(page);
    await stepIncr(page, 2);
    await first?.close({ code: 1011, reason: "dropped by the test" });
    await expect.poll(() => text(page, "#conn")).toContain("reconnecting");
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/v1/sessions/${session.id}/step`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${session.token}`,
          "content-type": "application/json"
        },
        body: JSON.stringify({
          action: {
            tool_calls: [
              { id: `c${i}`, function: { name: "incr", arguments: {} } }
            ]
          }
        })
      });
      expect(res.status).toBe(200);
    }
    release();
    await expect.poll(() => text(page, "#steps")).toBe("5");
    await expect.poll(() => text(page, "#state")).toContain('"count": 5');
    // It asked to resume after the last seq it had shown…
    expect(urls.length).toBeGreaterThanOrEqual(2);
    expect(urls.at(-1)).toMatch(/[?&]after=\d+$/);
    // …and the timeline holds every event exactly once, in order.
    const logged = await eventCount(session);
    await expect.poll(() => page.locator("#timeline li").count()).toBe(logged);
    const seqs = await page
      .locator("#timeline li")
      .evaluateAll((items) => items.map((li) => Number(li.dataset.seq)));
    expect(seqs).toEqual(Array.from({ length: logged }, (_, i) => i + 1));
    expect(await text(page, "#conn")).toBe("live: open");
    await page.close();
  });

  it("shows the state's defaults again after a reset", async () => {
    const page = await browser.context.newPage();
    await createCounter(page);
    await stepIncr(page, 3);
    await expect.poll(() => text(page, "#state")).toContain('"count": 3');
    await page.click("#reset");
    await expect.poll(() => text(page, "#episode")).toBe("2");
    await expect.poll(() => text(page, "#state")).toContain('"count": 0');
    await page.close();
  });

  it("builds forms from the schemas: dataset index, task fields, enums, bounds, required fields and direct calls", async () => {
    const page = await browser.context.newPage();
    await page.goto(base);
    await page.locator('[data-env="calculator"]').waitFor();

    // A task picked from the dataset by index: the same problem HTTP gets.
    const viaHttp = await post<{ session_id: string; token: string }>(
      "/v1/sessions",
      { environment: "calculator", task_index: 3 }
    );
    const reset = await post<{ observations: { content: string }[] }>(
      `/v1/sessions/${viaHttp.session_id}/reset`,
      {},
      viaHttp.token
    );
    const question = reset.observations[0]!.content.split("\n")[0]!;
    await page.selectOption("#create-env", "calculator");
    await page.fill("#task-index", "3");
    await page.click("#create");
    await page.locator("#current").waitFor();
    await page.click("#reset");
    await expect.poll(() => text(page, "#observations")).toContain(question);

    // A required string left empty is refused before anything is sent.
    await page.selectOption("#tool", "calculator");
    await page.click("#step");
    await expect
      .poll(() => text(page, "#error"))
      .toBe("expression is required.");
    expect(await text(page, "#steps")).toBe("0");
    await page.fill('#tool-form [name="expression"]', "6 * 7");
    await page.click("#step");
    await expect.poll(() => text(page, "#steps")).toBe("1");
    expect(await text(page, "#observations")).toContain("42");

    // The catalog's task form: its question reaches the reset.
    await page.fill("#task-index", "");
    await page.selectOption("#create-env", "catalog");
    await page.fill('#task-form [name="question"]', "Which dog beds?");
    await page.click("#create");
    await expect.poll(() => text(page, "#session-env")).toBe("catalog");
    await page.click("#reset");
    await expect
      .poll(() => text(page, "#observations"))
      .toContain("Which dog beds?");

    // An enum is a select of its values; a number is checked against its
    // bounds; "Call directly" runs the tool without a step.
    await page.selectOption("#tool", "query");
    const collection = page.locator('#tool-form select[name="collection"]');
    expect(
      await collection
        .locator("option")
        .evaluateAll((options) => options.map((o) => o.textContent))
    ).toEqual(["products", "messages"]);
    await collection.selectOption({ label: "products" });
    await page.fill('#tool-form [name="limit"]', "99");
    await page.click("#call");
    await expect.poll(() => text(page, "#error")).toBe("limit must be ≤ 50.");
    await page.fill('#tool-form [name="limit"]', "2");
    await page.click("#call");
    await expect
      .poll(() => text(page, "#observations"))
      .toContain('"_REF_ID": "query_products_1_1"');
    expect(await text(page, "#steps")).toBe("0");
    // The store's tree shows the call's result with its counts.
    await expect
      .poll(() => page.locator('[data-key="query/products"]').innerText())
      .toContain("1 entries, 2 objects");
    await page.close();
  });

  it("shows the whole transcript on attach, past the first page", async () => {
    const s = await post<{ session_id: string; token: string }>(
      "/v1/sessions",
      { environment: "counter", task: { target: 1000 } }
    );
    const path = `/v1/sessions/${s.session_id}`;
    await post(`${path}/reset`, {}, s.token);
    // 5 steps of 60 calls: more than 300 messages.
    for (let step = 0; step < 5; step++) {
      const tool_calls = Array.from({ length: 60 }, (_, i) => ({
        id: `s${step}c${i}`,
        function: { name: "incr", arguments: {} }
      }));
      await post(`${path}/step`, { action: { tool_calls } }, s.token);
    }
    const page = await attach(s.session_id, s.token);
    const logged = (await (
      await fetch(`${base}${path}/messages?limit=1000`, {
        headers: { authorization: `Bearer ${s.token}` }
      })
    ).json()) as { messages: unknown[] };
    expect(logged.messages.length).toBeGreaterThan(300);
    const items = page.locator("#transcript li");
    await expect.poll(() => items.count()).toBe(logged.messages.length);
    expect(await items.last().innerText()).toContain("counter=300");
    await page.close();
  });

  it("keeps the rendered rows bounded with 10 000 objects in the store", async () => {
    const created = await post<{ session_id: string; token: string }>(
      "/v1/sessions",
      { environment: "counter" }
    );
    const auth = {
      authorization: `Bearer ${created.token}`,
      "content-type": "application/json"
    };
    const path = `${base}/v1/sessions/${created.session_id}`;
    await fetch(`${path}/reset`, { method: "POST", headers: auth, body: "{}" });
    for (let chunk = 0; chunk < 10; chunk++) {
      const objects = Array.from({ length: 1000 }, (_, i) => ({
        n: chunk * 1000 + i,
        label: `object ${chunk * 1000 + i}`
      }));
      const res = await fetch(`${path}/environment/manual/rows`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ objects })
      });
      expect(res.status).toBe(201);
    }
    const page = await attach(created.session_id, created.token);
    const key = page.locator('[data-key="manual/rows"]');
    await expect.poll(() => key.innerText()).toContain("10000 objects");
    await key.click();
    const rows = page.locator('[data-testid="objects"] tbody tr');
    await expect.poll(() => rows.count()).toBe(100);
    await page.click("text=next ›");
    await expect
      .poll(() => text(page, '[data-testid="page"]'))
      .toBe("rows 101–200 of 10000");
    expect(await rows.count()).toBe(100);
    expect(await rows.first().innerText()).toContain("object 100");
    // The whole store view never holds more than one page of rows.
    expect(
      await page.locator("#store table tbody tr").count()
    ).toBeLessThanOrEqual(100);
    await page.close();
  });
});
