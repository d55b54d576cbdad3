import { describe, expect, it } from "vitest";
import {
  action,
  call,
  createResetSession,
  createSession,
  errorOf,
  send,
  withEnv
} from "./helpers";

describe("request bodies", () => {
  it("answers malformed JSON with 400 invalid_json", async () => {
    const session = await createResetSession();
    const res = await session.call("/step", { method: "POST", body: "{oops" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_json");
  });

  it("answers a body that is not JSON with 415, also on create", async () => {
    const session = await createResetSession();
    const res = await session.call("/step", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify(action("incr"))
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe("unsupported_media_type");
    const create = await call("/v1/sessions", {
      method: "POST",
      body: JSON.stringify({ environment: "counter" })
    });
    expect(create.status).toBe(415);
  });

  it("accepts JSON with a charset and +json media types", async () => {
    const session = await createResetSession();
    for (const type of [
      "application/json; charset=utf-8",
      "application/vnd.api+json"
    ]) {
      const res = await session.call("/step", {
        method: "POST",
        headers: { "Content-Type": type },
        body: JSON.stringify(action("incr"))
      });
      expect(res.status, type).toBe(200);
    }
  });

  it("answers a body over the limit with 413, by Content-Length or by what was read", async () => {
    const via = withEnv({});
    const session = await createSession({ environment: "counter" }, via);
    const big = JSON.stringify({
      task: { target: 1, pad: "x".repeat(1024 * 1024) }
    });
    const declared = await session.call("/reset", {
      method: "POST",
      body: big
    });
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe("payload_too_large");
    // A streamed body declares no length; the reader counts instead.
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(new TextEncoder().encode('{"task":"'));
        if (sent > 20) {
          controller.close();
          return;
        }
        controller.enqueue(chunk);
        sent++;
      }
    });
    const streamed = await session.call("/reset", {
      method: "POST",
      body: stream,
      // @ts-expect-error workerd's RequestInit knows duplex; the DOM types here do not.
      duplex: "half"
    });
    expect(streamed.status).toBe(413);
  });

  it("answers JSON nested past the depth limit with 413", async () => {
    const session = await createResetSession();
    const deep = `${"[".repeat(40)}${"]".repeat(40)}`;
    const res = await session.call("/state", {
      method: "PATCH",
      body: `{"key":"count","value":${deep}}`
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).details).toMatchObject({ limit: "jsonDepth" });
  });

  it("answers a schema failure with 400 invalid_request naming the field", async () => {
    const session = await createResetSession();
    const res = await session.call(
      "/step",
      send("POST", { action: { tool_calls: [{ id: 1 }] } })
    );
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain("action.tool_calls.0");
    const empty = await session.call("/step", send("POST", {}));
    expect(empty.status).toBe(400);
    expect((await errorOf(empty)).message).toContain("action");
  });

  it("answers a JSON body that is not an object with 400", async () => {
    const session = await createResetSession();
    const res = await session.call("/step", { method: "POST", body: "[1,2]" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_request");
  });
});

describe("paths and queries", () => {
  it("answers an unknown route with a JSON 404", async () => {
    const res = await call("/v2/nothing");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect((await errorOf(res)).code).toBe("not_found");
  });

  it("answers an unknown route under a session only after its credentials", async () => {
    const session = await createSession();
    expect((await call(`/v1/sessions/${session.session_id}/nope`)).status).toBe(
      401
    );
    const res = await session.call("/nope");
    expect(res.status).toBe(404);
  });

  it("answers a wrong method on a known path with 405 and Allow", async () => {
    const res = await call("/health", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET");
    expect((await errorOf(res)).code).toBe("method_not_allowed");
    const session = await createSession();
    const put = await session.call("/state", { method: "PUT", body: "{}" });
    expect(put.status).toBe(405);
    expect(put.headers.get("Allow")).toBe("GET, PATCH");
  });

  it("answers a bad index in a path or a query with 400", async () => {
    const session = await createResetSession();
    const path = await session.call("/environment/incr/results/x", {
      method: "DELETE"
    });
    expect(path.status).toBe(400);
    expect((await errorOf(path)).message).toContain("index");
    const query = await session.call(
      "/environment?tool=incr&name=results&index=x"
    );
    expect(query.status).toBe(400);
    expect((await errorOf(query)).message).toContain("index");
  });

  it("answers a bad tool name in a path with 400 invalid_name", async () => {
    const session = await createResetSession();
    const res = await session.call("/tools/bad.name", send("POST", {}));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_name");
  });

  it("answers a page limit out of range with 400", async () => {
    const session = await createResetSession();
    const res = await session.call("/messages?limit=0");
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain("limit");
  });
});
