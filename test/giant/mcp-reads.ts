/**
 * @module The store as MCP resources: `initialize`, `resources/list` (paged
 * by `nextCursor`) and `resources/read` of each key, following `next_uri`
 * until a page has none. Plain JSON-RPC over the session's `/mcp`, so each
 * answer is measured as sent.
 */

import type { KeyPlan } from "./plan";
import type { EntryPart, StoreSequence } from "./store-sequence";
import { count, newTally, type Tally } from "./tally";
import type { SessionRef, Wire } from "./wire";

const PROTOCOL = "2025-06-18";

/** One JSON-RPC call on the session's MCP endpoint: its result, and the answer's bytes. */
const rpc = async <T>(
  wire: Wire,
  s: SessionRef,
  id: number,
  method: string,
  params: object
): Promise<{ result: T; bytes: number }> => {
  const answer = await wire.send("POST", `/v1/sessions/${s.id}/mcp`, {
    token: s.token,
    body: { jsonrpc: "2.0", id, method, params },
    headers: {
      accept: "application/json, text/event-stream",
      "mcp-session-id": s.id,
      "mcp-protocol-version": PROTOCOL
    }
  });
  const body = JSON.parse(answer.text) as { result?: T; error?: unknown };
  if (answer.status !== 200 || body.result === undefined) {
    throw new Error(
      `MCP ${method} → ${answer.status}: ${answer.text.slice(0, 300)}`
    );
  }
  return { result: body.result, bytes: answer.bytes };
};

/** An MCP client of the session: initialize once, then list and read. */
export class McpReader {
  #id = 0;

  constructor(
    readonly wire: Wire,
    readonly session: SessionRef
  ) {}

  async initialize(): Promise<void> {
    await rpc(this.wire, this.session, ++this.#id, "initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "giant-session", version: "1" }
    });
  }

  /** Every resource's URI, page by page. */
  async list(): Promise<{ uris: string[]; tally: Tally }> {
    const uris: string[] = [];
    const tally = newTally();
    let cursor: string | undefined;
    do {
      const { result, bytes } = await rpc<{
        resources: { uri: string }[];
        nextCursor?: string;
      }>(
        this.wire,
        this.session,
        ++this.#id,
        "resources/list",
        cursor === undefined ? {} : { cursor }
      );
      count(tally, bytes, false);
      uris.push(...result.resources.map((r) => r.uri));
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    return { uris, tally };
  }

  /** A key's resource from its first page to the last `next_uri`. */
  async read(key: KeyPlan, into: StoreSequence): Promise<Tally> {
    const tally = newTally();
    let uri: string | undefined = `roost://environment/${key.tool}/${key.name}`;
    while (uri !== undefined) {
      const { result, bytes } = await rpc<{
        contents: { uri: string; text: string }[];
      }>(this.wire, this.session, ++this.#id, "resources/read", { uri });
      const page = JSON.parse(result.contents[0]?.text ?? "{}") as {
        entries: EntryPart[];
        next_uri?: string;
        truncated?: true;
      };
      count(tally, bytes, page.truncated);
      for (const entry of page.entries) into.take(entry);
      if (page.next_uri === uri) throw new Error(`${uri} named itself next.`);
      uri = page.next_uri;
    }
    return tally;
  }
}
