// Results drawn by payload type in the inspector's store view: the
// catalog's products as a table of their mapped columns, its messages as
// document cards, and a plain result as the objects table it always was.
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

const post = async <T>(path: string, body: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as T;
};

/** A reset catalog session with one products query and one messages query stored. */
const catalogSession = async () => {
  const s = await post<{ session_id: string; token: string }>("/v1/sessions", {
    environment: "catalog"
  });
  const path = `/v1/sessions/${s.session_id}`;
  await post(`${path}/reset`, {}, s.token);
  const call = (args: Record<string, unknown>) =>
    post<{ is_error: boolean; content: string }>(
      `${path}/tools/query`,
      { arguments: args },
      s.token
    );
  const products = await call({ collection: "products", text: "kibble" });
  expect(products.is_error, products.content).toBe(false);
  const messages = await call({ collection: "messages", text: "order" });
  expect(messages.is_error, messages.content).toBe(false);
  const rows = (JSON.parse(products.content) as { rows: Row[] }).rows;
  const notes = (JSON.parse(messages.content) as { rows: Row[] }).rows;
  return { ...s, rows, notes };
};

type Row = Record<string, string | number>;

const attach = async (id: string, token: string) => {
  const page = await browser.context.newPage();
  await page.goto(base);
  await page.fill("#attach-id", id);
  await page.fill("#attach-token", token);
  await page.click("#attach");
  return page;
};

describe("results drawn by payload type", () => {
  it("draws a table result as a table of its mapped columns, one row per object", async () => {
    const s = await catalogSession();
    const page = await attach(s.session_id, s.token);
    await page.locator('[data-key="query/products"]').click();
    const table = page.locator('[data-testid="payload-table"]');
    await table.waitFor();
    expect(await table.locator("thead th").allInnerTexts()).toEqual([
      "product",
      "animal",
      "category",
      "price",
      "rating"
    ]);
    const rows = table.locator("tbody tr");
    expect(await rows.count()).toBe(s.rows.length);
    const first = s.rows[0]!;
    expect(await rows.first().locator("td").allInnerTexts()).toEqual([
      String(first.name),
      String(first.animal),
      String(first.category),
      String(first.price),
      String(first.rating)
    ]);
    // The description is stored but not a column; no plain table is drawn.
    expect(await table.innerText()).not.toContain(String(first.description));
    expect(await page.locator('[data-testid="objects"]').count()).toBe(0);
    await page.close();
  });

  it("draws a document result as cards of title, author and content", async () => {
    const s = await catalogSession();
    const page = await attach(s.session_id, s.token);
    await page.locator('[data-key="query/messages"]').click();
    const cards = page.locator('[data-testid="payload-documents"] article');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(s.notes.length);
    const note = s.notes[0]!;
    expect(await cards.first().locator("h4").innerText()).toBe(
      String(note.channel)
    );
    expect(await cards.first().locator("small").innerText()).toBe(
      String(note.author)
    );
    expect(await cards.first().locator("p").innerText()).toBe(
      String(note.text)
    );
    await page.close();
  });

  it("keeps a plain result as the objects table, and shows markup in values as text", async () => {
    const s = await catalogSession();
    const res = await fetch(
      `${base}/v1/sessions/${s.session_id}/environment/manual/rows`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${s.token}`,
          "content-type": "application/json"
        },
        body: JSON.stringify({ objects: [{ label: "<b>bold</b>" }] })
      }
    );
    expect(res.status).toBe(201);
    const page = await attach(s.session_id, s.token);
    await page.locator('[data-key="manual/rows"]').click();
    const plain = page.locator('[data-testid="objects"]');
    await plain.waitFor();
    expect(await plain.locator("tbody td").allInnerTexts()).toContain(
      "<b>bold</b>"
    );
    expect(await plain.locator("b").count()).toBe(0);
    await page.close();
  });
});
