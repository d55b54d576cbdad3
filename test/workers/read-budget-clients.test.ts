// The byte budget where clients other than the HTTP pages meet it: the
// socket's snapshot of a large state, MCP resources read through
// next_uri, and the OpenAPI document.
import { describe, expect, it } from "vitest";
import { call, createResetSession, json, send } from "./helpers";
import { fill, KIB, type Obj, type WireEntry } from "./read-budget-helpers";
import { openSocket } from "./ws-helpers";

describe("the socket's snapshot", () => {
  it("holds what fits of a large state and names where the rest is read", async () => {
    const s = await createResetSession({ environment: "wide" });
    const value = "w".repeat(250 * KIB);
    for (const key of ["a", "b", "c", "d", "e", "f"]) {
      const res = await s.call("/state", send("PATCH", { key, value }));
      expect(res.status).toBe(200);
    }
    const socket = await openSocket(s.session_id, s.token);
    const [snapshot] = await socket.until((f) =>
      f.some((x) => x.type === "session.snapshot")
    );
    expect(snapshot).toMatchObject({ truncated: true });
    const held = Object.keys(snapshot!.state as Obj);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThan(6);
    const rest = await json<{ state: Obj; next_cursor?: string }>(
      await s.call(`/state?cursor=${snapshot!.state_next_cursor as string}`)
    );
    expect([...held, ...Object.keys(rest.state)]).toEqual(
      expect.arrayContaining(["a", "b", "c", "d", "e", "f"])
    );
    expect(
      new TextEncoder().encode(JSON.stringify(snapshot)).byteLength
    ).toBeLessThan(1024 * KIB + 4 * KIB);
    socket.ws.close();
  });
});

describe("MCP resources", () => {
  it("reads a key larger than one page by following next_uri", async () => {
    const s = await createResetSession();
    // Three entries of 1000 objects of 1 KiB: past the 1 MiB of one read.
    await fill(s, ["many"], 3, 900, 1);
    const seen: [number, number][] = [];
    let uri: string | undefined = "roost://environment/t/many";
    let reads = 0;
    while (uri !== undefined) {
      const res = await s.call(
        "/mcp",
        send("POST", {
          jsonrpc: "2.0",
          id: reads,
          method: "resources/read",
          params: { uri }
        })
      );
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text.length).toBeLessThan(4 * 1024 * KIB);
      const answer = JSON.parse(text) as {
        result: { contents: { text: string }[] };
      };
      const page = JSON.parse(answer.result.contents[0]!.text) as {
        entries: WireEntry[];
        next_uri?: string;
      };
      for (const e of page.entries)
        for (const o of e.objects)
          seen.push([o.entry as number, o.i as number]);
      uri = page.next_uri;
      reads++;
    }
    expect(reads).toBeGreaterThan(2);
    expect(seen).toEqual(
      [0, 1, 2].flatMap((e) =>
        Array.from({ length: 900 }, (_, i) => [e, i] as [number, number])
      )
    );
  });
});

describe("the budget in OpenAPI", () => {
  it("documents max_bytes on every paged read and truncated on its answer", async () => {
    const doc = await json<{
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string; description?: string }[];
            responses: Record<string, { content?: unknown }>;
          }
        >
      >;
      components: { schemas: Record<string, unknown> };
    }>(await call("/openapi.json"));
    for (const path of [
      "/v1/sessions/{id}/environment",
      "/v1/sessions/{id}/environment/keys",
      "/v1/sessions/{id}/messages",
      "/v1/sessions/{id}/events",
      "/v1/sessions/{id}/state",
      "/v1/sessions/{id}/frame"
    ]) {
      const get = doc.paths[path]?.get;
      const param = get?.parameters?.find((p) => p.name === "max_bytes");
      expect(param?.description, path).toMatch(/1 MiB when absent/);
      // Answers are components; every one a read may give says it may be cut.
      const refs = [
        ...JSON.stringify(get?.responses["200"]).matchAll(
          /#\/components\/schemas\/(\w+)/g
        )
      ].map((m) => m[1]!);
      expect(refs.length, path).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(JSON.stringify(doc.components.schemas[ref]), ref).toContain(
          '"truncated"'
        );
      }
    }
  });
});
