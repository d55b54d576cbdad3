// The chat example (examples/chat, served by the worker at /chat/) in
// Chromium, end to end: the answer streams in, Results show as tables
// while the run is still going, the tree highlights the run's path, a
// reload mid-run resumes the same message with every part once, and the
// fork control opens a copy. Runs whose end a test must wait for use the
// fake OpenAI model, whose last answer the test holds.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  decideCompletion as decide,
  fakeOpenAIRequests,
  releaseFakeOpenAI,
  scriptFakeOpenAI
} from "../node/fake-openai";
import type {} from "../node/global-setup";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
const fake = inject("fakeOpenAIUrl");
let browser: Browser;

beforeAll(async () => {
  // test/browser/build-pages.ts built the app before the server started.
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

/**
 * Scripts a run that finds three cat products, then holds its answer (and,
 * with `atSearch`, first its decision at the search branch).
 */
const heldRun = async (atSearch?: string): Promise<string> => {
  const hold = `chat-app-${crypto.randomUUID()}`;
  await scriptFakeOpenAI(fake, [
    decide({ function_name: "search", message_update: "Searching." }),
    {
      ...decide({
        function_name: "query",
        function_inputs: {
          collection: "products",
          filters: [{ field: "animal", op: "eq", value: "cat" }],
          limit: 3
        },
        message_update: "Querying."
      }),
      ...(atSearch ? { hold: atSearch } : {})
    },
    {
      ...decide({
        function_name: "text_response",
        function_inputs: { text: "Three cat products, found." }
      }),
      hold
    }
  ]);
  return hold;
};

/** Waits until the model was asked `n` times (a new script starts the count): the run is parked at a held answer. */
const parked = (n = 3) =>
  expect.poll(async () => (await fakeOpenAIRequests(fake)).length).toBe(n);

const open = async (query: string, page?: Page): Promise<Page> => {
  const p = page ?? (await browser.context.newPage());
  await p.goto(`${base}/chat/${query}`);
  await p.waitForSelector("#status");
  return p;
};

const ask = async (page: Page, text: string) => {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
};

const texts = (page: Page) =>
  page.$$eval(".message.assistant .text", (e) => e.map((x) => x.textContent));

const userTexts = (page: Page) =>
  page.$$eval(".message.user .text", (e) => e.map((x) => x.textContent));

const tables = (page: Page) =>
  page.$$eval(".result", (cards) =>
    cards.map((card) => ({
      tool: card.getAttribute("data-tool"),
      columns: Array.from(card.querySelectorAll("th")).map(
        (th) => th.textContent
      ),
      rows: Array.from(card.querySelectorAll("tbody tr")).map((tr) =>
        Array.from(tr.querySelectorAll("td")).map((td) => td.textContent)
      )
    }))
  );

/** Where the parts already shown sit inside their scrolling boxes, and the composer. */
const layout = (page: Page) =>
  page.evaluate(() => {
    const box = (el: Element | null) => {
      const e = el as HTMLElement | null;
      return e && [e.offsetLeft, e.offsetTop, e.offsetWidth, e.offsetHeight];
    };
    return {
      texts: Array.from(document.querySelectorAll(".message .text"))
        .slice(0, 2)
        .map(box),
      tool: box(document.querySelector(".tool")),
      result: box(document.querySelector(".result")),
      composer: document
        .querySelector("#prompt")
        ?.getBoundingClientRect()
        .toJSON()
    };
  });

const marked = (page: Page, mark: string) =>
  page.$$eval(`.tree [${mark}]`, (e) =>
    e.map((x) => x.getAttribute("data-node") ?? x.getAttribute("data-tool"))
  );
const onPath = (page: Page) => marked(page, "data-on-path");
const current = (page: Page) =>
  page.$$eval('.tree [aria-current="step"]', (e) =>
    e.map((x) => x.getAttribute("data-node"))
  );

const done = async (page: Page) => {
  await page.waitForSelector('.message.assistant[data-state="completed"]');
  await page.waitForFunction(
    () => document.querySelector("#status")?.textContent === "ready"
  );
};

describe("the chat example app", () => {
  it("streams the answer, shows Results as tables before the run ends, and highlights the tree path", async () => {
    const atSearch = `chat-app-${crypto.randomUUID()}`;
    const hold = await heldRun(atSearch);
    const page = await open("?model=openai");
    await ask(page, "Any cat products?");
    // Pass 1, the model deciding at the search branch: root → search.
    await parked(2);
    await expect.poll(() => current(page)).toEqual(["search"]);
    expect(await onPath(page)).toEqual(["root", "search"]);
    expect(await page.textContent("#tree-state")).toBe("pass 1 of 5");
    await releaseFakeOpenAI(fake, atSearch);

    await page.waitForSelector(".result tbody tr");
    await parked();
    // Still going: the table is there before the answer.
    expect(await page.textContent("#status")).toBe("streaming");
    expect(await texts(page)).toEqual(["Searching.", "Querying."]);
    const [table, ...more] = await tables(page);
    expect(more).toEqual([]);
    expect(table!.tool).toBe("query");
    // The catalog's mapping: its display fields, not the raw columns.
    expect(table!.columns).toEqual([
      "product",
      "animal",
      "category",
      "price",
      "rating"
    ]);
    expect(table!.rows).toHaveLength(3);
    for (const row of table!.rows) expect(row[1]).toBe("cat");
    // Pass 2 at the root while the model thinks; pass 1's path visited.
    await expect.poll(() => current(page)).toEqual(["root"]);
    expect(await onPath(page)).toEqual(["root"]);
    expect(await marked(page, "data-visited")).toEqual([
      "root",
      "search",
      "query"
    ]);
    expect(await page.textContent("#tree-state")).toBe("pass 2 of 5");

    const before = await layout(page);
    await releaseFakeOpenAI(fake, hold);
    await done(page);
    expect(await texts(page)).toEqual([
      "Searching.",
      "Querying.",
      "Three cat products, found."
    ]);
    // The answer arriving moved nothing already shown.
    expect(await layout(page)).toEqual(before);
    // The last pass answered at the root; the run is over, nothing current.
    expect(await onPath(page)).toEqual(["root", "text_response"]);
    expect(await current(page)).toEqual([]);
    expect(await page.textContent("#tree-state")).toBe("completed");
    expect(await tables(page)).toHaveLength(1);
    expect(await page.$("#error")).toBeNull();
    await page.close();
  });

  it("resumes after a reload mid-run: the same message, every part once", async () => {
    const hold = await heldRun();
    const page = await open("?model=openai");
    await ask(page, "Any cat products?");
    await page.waitForSelector(".result tbody tr");
    await parked();
    const id = await page.getAttribute(".message.assistant", "data-id");
    const url = page.url();

    await page.reload();
    // The page first shows the conversation it saved, table and all; then
    // the resumed stream empties the run's message and replays the run
    // into it from its start. Wait for the replay itself (only the stream
    // makes the status "streaming") to have brought the table back: the
    // saved copy would pass the reads below without any resume, and a
    // replay read midway has no parts yet.
    await page.waitForFunction(
      () =>
        document.querySelector("#status")?.textContent === "streaming" &&
        document.querySelector(".result tbody tr") !== null
    );
    // The same session (from the URL), the same run, still going.
    expect(page.url()).toBe(url);
    expect(await page.getAttribute(".message.assistant", "data-id")).toBe(id);
    expect(await texts(page)).toEqual(["Searching.", "Querying."]);
    // The run's path so far, from the replayed decisions. (Where the run is
    // now came in a tree.node event before the reload, which a new socket
    // does not replay: the tree shows it again from the next event on.)
    const trail = [
      ...(await onPath(page)),
      ...(await marked(page, "data-visited"))
    ];
    expect(new Set(trail)).toEqual(new Set(["root", "search", "query"]));
    // The question too: the page keeps the conversation across a reload.
    expect(await userTexts(page)).toEqual(["Any cat products?"]);

    await releaseFakeOpenAI(fake, hold);
    await done(page);
    expect(
      await page.$$eval(".message.assistant", (e) =>
        e.map((x) => x.getAttribute("data-id"))
      )
    ).toEqual([id]);
    expect(await texts(page)).toEqual([
      "Searching.",
      "Querying.",
      "Three cat products, found."
    ]);
    expect(
      await page.$$eval(".message.assistant .tool", (e) =>
        e.map(
          (x) =>
            `${x.getAttribute("data-tool")}:${x.getAttribute("data-state")}`
        )
      )
    ).toEqual(["query:output-available"]);
    const [table, ...more] = await tables(page);
    expect(more).toEqual([]);
    expect(table!.rows).toHaveLength(3);
    await page.close();
  });

  it("shows a document Result as documents, by its payload type and mapping", async () => {
    await scriptFakeOpenAI(fake, [
      decide({ function_name: "search" }),
      decide({
        function_name: "query",
        function_inputs: { collection: "messages", filters: [], limit: 2 }
      }),
      decide({
        function_name: "text_response",
        function_inputs: { text: "Two messages." }
      })
    ]);
    const page = await open("?model=openai");
    await ask(page, "What do customers say?");
    await done(page);
    const docs = await page.$$eval(
      '.result[data-payload-type="document"] .document',
      (e) =>
        e.map((d) => ({
          title: d.querySelector("strong")?.textContent,
          text: d.querySelector("p:last-child")?.textContent
        }))
    );
    expect(docs).toHaveLength(2);
    const messages = JSON.parse(
      readFileSync("examples/catalog/messages.json", "utf8")
    ) as { channel: string; text: string }[];
    for (const doc of docs) {
      // The mapping: the channel as the title, the text as the content.
      expect(messages).toContainEqual(
        expect.objectContaining({ channel: doc.title, text: doc.text })
      );
    }
    expect(await page.$(".result table")).toBeNull();
    await page.close();
  });

  it("runs the scripted model to its answer, shows the typed state, forks into a new tab, and takes the screenshots", async () => {
    const page = await open("?model=scripted");
    await page.setViewportSize({ width: 1280, height: 800 });
    await ask(page, "Which cat toys are rated 4.5 or higher?");
    await done(page);
    expect((await texts(page)).at(-1)).toBe(
      'Here is what I found for "Which cat toys are rated 4.5 or higher?", with counts per category.'
    );
    const shown = await tables(page);
    expect(shown.map((t) => t.tool)).toEqual(["query", "aggregate"]);
    expect(shown[0]!.rows.length).toBeGreaterThan(0);
    // The query tool wrote its query into the typed state.
    await expect
      .poll(() => page.textContent('[data-key="last_query"]'))
      .toContain("products");

    // Taken every run (test artifacts); the copies in docs/ are refreshed
    // only on request, since the session id in the header differs each run.
    const artifacts = join("test", "browser", "artifacts");
    mkdirSync(artifacts, { recursive: true });
    const shots = [
      ["chat.png", { width: 1280, height: 800 }],
      ["chat-phone.png", { width: 390, height: 844 }]
    ] as const;
    for (const [name, size] of shots) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(artifacts, name) });
      if (process.env.UPDATE_DOCS_SCREENSHOT === "1") {
        copyFileSync(join(artifacts, name), join("docs", name));
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    const source = await page.textContent("#session-id");
    const [copy] = await Promise.all([
      browser.context.waitForEvent("page"),
      page.click("#fork")
    ]);
    await copy.waitForSelector("#status");
    await expect
      .poll(() => copy.textContent('[data-key="last_query"]'))
      .toContain("products");
    // The copy's tab carries the conversation the copy's history holds.
    expect(await userTexts(copy)).toEqual([
      "Which cat toys are rated 4.5 or higher?"
    ]);
    expect((await texts(copy)).at(-1)).toBe((await texts(page)).at(-1));
    const forked = await copy.textContent("#session-id");
    expect(forked).not.toBe(source);
    expect(new URL(copy.url()).hash).toContain(`session=${forked}`);
    // The copy keeps the page's model choice.
    expect(new URL(copy.url()).search).toBe("?model=scripted");
    await copy.close();
    await page.close();
  });
});
