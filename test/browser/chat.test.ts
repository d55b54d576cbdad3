// The AI SDK's real useChat (@ai-sdk/react, React 19) in Chromium, on a
// page of another origin, driving a decision-tree run through the chat
// endpoint: the answer, tool parts and data parts stream in, and a reload
// mid-run resumes (resume: true) into the whole answer, every part once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  decideCompletion as decide,
  fakeOpenAIRequests,
  releaseFakeOpenAI,
  scriptFakeOpenAI
} from "../node/fake-openai";
import type {} from "../node/global-setup";
import { listenPort } from "../node/helpers/test-port";
import { type Browser, launch } from "./browser";

const base = inject("baseUrl");
const fake = inject("fakeOpenAIUrl");
let browser: Browser;
let server: Server;
let origin: string;

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>chat</title></head>
<body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [new URL("./chat-page/app.ts", import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent"
  });
  const js = bundle.outputFiles[0]!.text;
  // The page's own origin, as a frontend's would be: the API is cross-origin.
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    if (path === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      return res.end(js);
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(HTML);
  });
  const port = await listenPort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

const catalogSession = async () => {
  const res = await fetch(`${base}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ environment: "catalog" })
  });
  const s = (await res.json()) as { session_id: string; token: string };
  await fetch(`${base}/v1/sessions/${s.session_id}/reset`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${s.token}`
    },
    body: "{}"
  });
  return s;
};

const open = async (query: Record<string, string>): Promise<Page> => {
  const page = await browser.context.newPage();
  await page.goto(`${origin}/?${new URLSearchParams({ base, ...query })}`);
  await page.waitForSelector("#status");
  return page;
};

const send = async (page: Page, text: string) => {
  await page.fill("#prompt", text);
  await page.click("#send");
};

/** What the assistant message shows, part by part. */
const shown = (page: Page) =>
  page.$$eval("section.assistant", (sections) =>
    sections.map((s) => ({
      id: s.getAttribute("data-id"),
      texts: Array.from(s.querySelectorAll(".text")).map((e) => e.textContent),
      tools: Array.from(s.querySelectorAll(".tool")).map(
        (e) => `${e.getAttribute("data-tool")}:${e.getAttribute("data-state")}`
      ),
      results: Array.from(s.querySelectorAll(".data-result")).map(
        (e) => JSON.parse(e.textContent ?? "{}") as { objects: unknown[] }
      ),
      decisions: Array.from(s.querySelectorAll(".data-decision")).map(
        (e) => (JSON.parse(e.textContent ?? "{}") as { option: string }).option
      ),
      tree: Array.from(s.querySelectorAll(".data-tree")).map(
        (e) => JSON.parse(e.textContent ?? "{}") as Record<string, unknown>
      ),
      steps: s.querySelectorAll(".step").length
    }))
  );

describe("useChat from @ai-sdk/react against the chat endpoint", () => {
  it("shows a catalog run's answer, tool parts and data parts as it streams", async () => {
    const s = await catalogSession();
    const page = await open({
      session: s.session_id,
      token: s.token,
      chat: "browser-scripted",
      model: "scripted"
    });
    await send(page, "Which cat toys are rated 4.5 or higher?");
    await page.waitForSelector('section.assistant[data-state="completed"]');
    await page.waitForFunction(
      () => document.querySelector("#status")?.textContent === "ready"
    );
    expect(await page.$("#error")).toBeNull();
    const [message, ...more] = await shown(page);
    expect(more).toEqual([]);
    expect(message!.texts.at(-1)).toBe(
      'Here is what I found for "Which cat toys are rated 4.5 or higher?", with counts per category.'
    );
    expect(message!.tools).toEqual([
      "query:output-available",
      "aggregate:output-available"
    ]);
    expect(message!.results).toHaveLength(2);
    expect(message!.results[0]!.objects.length).toBeGreaterThan(0);
    expect(message!.decisions).toEqual([
      "search",
      "query",
      "search",
      "aggregate",
      "text_response"
    ]);
    expect(message!.tree).toEqual([
      expect.objectContaining({ state: "completed", outcome: "answered" })
    ]);
    expect(message!.steps).toBe(3);
    // The user's message is there too, as useChat keeps it.
    expect(
      await page.$$eval("section.user .text", (e) =>
        e.map((x) => x.textContent)
      )
    ).toEqual(["Which cat toys are rated 4.5 or higher?"]);
    await page.close();
  });

  it("resumes after a reload mid-run: the whole answer, no part twice", async () => {
    const hold = `browser-${crypto.randomUUID()}`;
    await scriptFakeOpenAI(fake, [
      decide({ function_name: "search", message_update: "Searching." }),
      decide({
        function_name: "query",
        function_inputs: {
          collection: "products",
          filters: [{ field: "animal", op: "eq", value: "cat" }],
          limit: 3
        },
        message_update: "Querying."
      }),
      {
        ...decide({
          function_name: "text_response",
          function_inputs: { text: "Three cat products, found." }
        }),
        hold
      }
    ]);
    const s = await catalogSession();
    const page = await open({
      session: s.session_id,
      token: s.token,
      chat: "browser-resume",
      model: "openai"
    });
    await send(page, "Any cat products?");
    // The first pass's tool and Result are on screen while the model's
    // next answer is held.
    await page.waitForSelector('.tool[data-state="output-available"]');
    await page.waitForSelector(".data-result");
    await expect
      .poll(async () => (await fakeOpenAIRequests(fake)).length)
      .toBe(3);
    const before = await shown(page);
    expect(before[0]!.texts).toEqual(["Searching.", "Querying."]);

    await page.reload();
    // Resumed on mount: the replay shows the run so far, still going.
    await page.waitForSelector(".data-result");
    expect((await shown(page))[0]!.tree[0]).toMatchObject({
      state: "running"
    });
    await releaseFakeOpenAI(fake, hold);
    await page.waitForSelector('section.assistant[data-state="completed"]');
    await page.waitForFunction(
      () => document.querySelector("#status")?.textContent === "ready"
    );
    expect(await page.$("#error")).toBeNull();
    const after = await shown(page);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(before[0]!.id);
    expect(after[0]!.texts).toEqual([
      "Searching.",
      "Querying.",
      "Three cat products, found."
    ]);
    expect(after[0]!.tools).toEqual(["query:output-available"]);
    expect(after[0]!.results).toHaveLength(1);
    expect(after[0]!.results[0]!.objects).toHaveLength(3);
    expect(after[0]!.decisions).toEqual(["search", "query", "text_response"]);
    expect(after[0]!.steps).toBe(2);
    await page.close();
  });
});
