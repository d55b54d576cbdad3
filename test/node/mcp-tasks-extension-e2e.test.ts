import {
  Client,
  StreamableHTTPClientTransport
} from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome
} from "@modelcontextprotocol/ext-tasks/client";
import { describe, expect, inject, it } from "vitest";

// MCP tasks in the stateless revision (the io.modelcontextprotocol/tasks
// extension), driven by the official tasks client on top of the v2 client,
// against wrangler dev. The extension client frames its own task requests
// and hands them to a raw dispatcher: here, a POST with the routing
// headers 2026-07-28 asks for, as a host's transport sends them.
const base = inject("baseUrl");
const VERSION = "2026-07-28";
const CLIENT_INFO = { name: "roost-e2e-tasks", version: "1.0.0" };

let ids = 0;
const rawDispatch =
  (url: string, headers: Record<string, string>) =>
  async (request: unknown) => {
    const message = request as {
      id?: string | number;
      method: string;
      params?: { name?: string; uri?: string; taskId?: string };
    };
    const named =
      message.params?.name ?? message.params?.uri ?? message.params?.taskId;
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": message.method,
        ...(named === undefined ? {} : { "mcp-name": named }),
        ...headers
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: `raw-${++ids}`, ...message })
    });
    return (await res.json()) as never;
  };

const open = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: "auto" }
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers }
    })
  );
  expect(client.getProtocolEra()).toBe("modern");
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch: rawDispatch(url, headers),
    v2RequestFraming: {
      protocolVersion: VERSION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: {}
    }
  });
  return { client, session };
};

const textOf = (result: unknown) =>
  (result as { content: { text: string }[] }).content.map((c) => c.text);

describe("MCP tasks 2026-07-28 with the official tasks client", () => {
  it("answers a quick call at once and a long one as a task polled to its result, on an environment's endpoint", async () => {
    const url = `${base}/v1/environments/nap/mcp`;
    const { client, session } = await open(url);
    try {
      const quick = await session.callTool("nap", { ms: 0 });
      expect(quick.kind).toBe("immediate");
      const quickOutcome = (await quick.settle()).outcome;
      expect(textOf(resultFromTaskOutcome(quickOutcome))).toEqual(["naps=1"]);

      const long = await session.callTool("nap", { ms: 4000 });
      expect(long.kind).toBe("task");
      const seen: string[] = [];
      const { outcome } = await long.settle({
        onEvent: (event) => {
          if (event.type === "task") seen.push(event.task.status);
        }
      });
      expect(outcome.status).toBe("completed");
      // A fresh session (no _meta session sent), whose first nap this is.
      expect(textOf(resultFromTaskOutcome(outcome))).toEqual(["naps=1"]);
      expect(seen).toContain("working");
    } finally {
      await session.close();
      await client.close();
    }
  });

  it("runs a task on a session's endpoint and cancels one", async () => {
    const created = (await (
      await fetch(`${base}/v1/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ environment: "nap" })
      })
    ).json()) as { session_id: string; token: string };
    const auth = { authorization: `Bearer ${created.token}` };
    const reset = await fetch(
      `${base}/v1/sessions/${created.session_id}/reset`,
      {
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body: "{}"
      }
    );
    expect(reset.status).toBe(200);
    const url = `${base}/v1/sessions/${created.session_id}/mcp`;
    const { client, session } = await open(url, auth);
    try {
      const long = await session.callTool("nap", { ms: 3000 });
      expect(long.kind).toBe("task");
      expect(
        textOf(resultFromTaskOutcome((await long.settle()).outcome))
      ).toEqual(["naps=1"]);
      const cancelled = await session.callTool("nap", { ms: 8000 });
      expect(cancelled.kind).toBe("task");
      await cancelled.cancel();
      const { outcome } = await cancelled.settle();
      expect(outcome.status).toBe("cancelled");
    } finally {
      await session.close();
      await client.close();
    }
  });
});
