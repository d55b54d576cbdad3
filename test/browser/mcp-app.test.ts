import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Browser, launch, watchedPage } from "./browser";

// The session's live view as an MCP App, rendered the way a host renders
// one: the official host bridge (@modelcontextprotocol/ext-apps's
// AppBridge) in Chromium drives the handshake with the page a session's
// `ui://` resource answers, in a sandboxed iframe; the page then watches
// the session over its socket with the observe-only token minted for it.
const base = inject("baseUrl");
const root = new URL("../..", import.meta.url).pathname;
let browser: Browser;
let bridge: string;

beforeAll(async () => {
  browser = await launch();
  const built = await build({
    stdin: {
      contents: `import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
        globalThis.Apps = { AppBridge, PostMessageTransport };`,
      resolveDir: root,
      loader: "ts"
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false
  });
  bridge = built.outputFiles[0]!.text;
});

afterAll(async () => {
  await browser?.close();
});

interface Host {
  appInfo: unknown;
}

describe("the session's live view as an MCP App", () => {
  it("completes the host bridge's handshake, shows the tool's result and lists the session's events live", async () => {
    const created = (await (
      await fetch(`${base}/v1/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ environment: "counter" })
      })
    ).json()) as { session_id: string; token: string };
    const auth = { authorization: `Bearer ${created.token}` };
    await fetch(`${base}/v1/sessions/${created.session_id}/reset`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{}"
    });
    const client = new Client({ name: "apps-host", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`${base}/v1/sessions/${created.session_id}/mcp`),
        { requestInit: { headers: auth } }
      )
    );
    const { tools } = await client.listTools();
    const incr = tools.find((t) => t.name === "incr");
    const uri = (incr?._meta?.ui as { resourceUri?: string } | undefined)
      ?.resourceUri;
    expect(uri).toBe("ui://roost/live-view");
    const read = await client.readResource({ uri: uri! });
    const page = read.contents[0] as unknown as {
      mimeType: string;
      text: string;
      _meta: { ui: { csp: { connectDomains: string[] } } };
    };
    expect(page.mimeType).toBe("text/html;profile=mcp-app");
    expect(page._meta.ui.csp.connectDomains).toContain(new URL(base).origin);
    // Its credential may watch the session, and nothing more.
    const token = /"token":"([^"]+)"/.exec(page.text)?.[1];
    expect(token).toMatch(/^observe\./);
    const refused = await fetch(
      `${base}/v1/sessions/${created.session_id}/reset`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json"
        },
        body: "{}"
      }
    );
    expect(refused.status).toBe(403);

    const first = await client.callTool({ name: "incr", arguments: {} });
    const { page: host, errors } = await watchedPage(browser);
    await host.setContent("<!doctype html><html><body></body></html>");
    await host.addScriptTag({ content: bridge });
    const shaken = await host.evaluate(
      async ({ html, result }) => {
        const { AppBridge, PostMessageTransport } = (
          globalThis as unknown as {
            Apps: {
              AppBridge: new (
                ...args: unknown[]
              ) => {
                addEventListener(type: string, fn: () => void): void;
                connect(transport: unknown): Promise<void>;
                sendToolInput(input: unknown): Promise<void>;
                sendToolResult(result: unknown): Promise<void>;
                getAppVersion(): unknown;
              };
              PostMessageTransport: new (a: unknown, b: unknown) => unknown;
            };
          }
        ).Apps;
        const frame = document.createElement("iframe");
        frame.setAttribute("sandbox", "allow-scripts");
        document.body.append(frame);
        const bridge = new AppBridge(
          null,
          { name: "roost-test-host", version: "1" },
          { serverTools: {}, logging: {} },
          { hostContext: { theme: "light", displayMode: "inline" } }
        );
        const initialized = new Promise<void>((done) =>
          bridge.addEventListener("initialized", () => done())
        );
        await bridge.connect(
          new PostMessageTransport(frame.contentWindow, frame.contentWindow)
        );
        frame.srcdoc = html;
        await initialized;
        await bridge.sendToolInput({ arguments: {} });
        await bridge.sendToolResult(result);
        return { appInfo: bridge.getAppVersion() } satisfies Host;
      },
      { html: page.text, result: first }
    );
    expect(shaken.appInfo).toEqual({ name: "roost-live-view", version: "1" });
    const app = host.frames().find((f) => f !== host.mainFrame())!;
    await app.waitForFunction(
      () =>
        document.getElementById("result")?.textContent === "Result: counter=1"
    );
    await app.waitForFunction(
      () => document.getElementById("state")?.textContent === "live"
    );
    // A call made after the page opened reaches it over the socket.
    await client.callTool({ name: "incr", arguments: {} });
    await app.waitForFunction(() =>
      Array.from(document.querySelectorAll("#events li")).some(
        (li) => li.textContent === "tool.finished incr"
      )
    );
    expect(errors).toEqual([]);
    await client.close();
  });
});
