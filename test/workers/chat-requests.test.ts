// What the chat endpoint refuses, as 4xx JSON errors useChat shows, and
// a browser on an allowed origin posting with a token.

import { describe, expect, it } from "vitest";
import { flags } from "../fixtures/environments";
import { chat, chatBody, chunksOf, started } from "./chat-helpers";
import { call, createResetSession, errorOf, send } from "./helpers";

describe("POST /v1/sessions/:id/chat: requests", () => {
  it("answers 4xx JSON errors useChat shows: no text, no tree, a run going, bad bodies", async () => {
    const s = await createResetSession({ environment: "forest" });
    const noText = await s.call(
      "/chat",
      send("POST", {
        id: "c",
        messages: [
          { id: "u", role: "user", parts: [{ type: "file", url: "x" }] }
        ]
      })
    );
    expect(noText.status).toBe(400);
    expect((await errorOf(noText)).message).toMatch(/no text/);
    const onlyAssistant = await s.call(
      "/chat",
      send("POST", {
        id: "c",
        messages: [
          {
            id: "a",
            role: "assistant",
            parts: [{ type: "text", text: "hi" }]
          }
        ]
      })
    );
    expect(onlyAssistant.status).toBe(400);
    expect((await s.call("/chat", send("POST", { id: "c" }))).status).toBe(400);
    const unknownModel = await chat(s, "multi", "c", { model: "gpt-nothing" });
    expect(unknownModel.status).toBe(400);

    const counter = await createResetSession({ environment: "counter" });
    const noTree = await chat(counter, "hi");
    expect(noTree.status).toBe(400);
    expect((await errorOf(noTree)).message).toMatch(/no decision tree/);

    const gate = `chat-409-${crypto.randomUUID()}`;
    const first = await chat(s, `gate:${gate}`, "busy");
    await started(gate);
    const second = await chat(s, "multi", "busy");
    expect(second.status).toBe(409);
    expect((await errorOf(second)).code).toBe("conflict");
    flags.open.add(gate);
    await first.text();

    const noToken = await call(
      `/v1/sessions/${s.session_id}/chat`,
      send("POST", chatBody("multi"))
    );
    expect(noToken.status).toBe(401);
    const noTokenResume = await call(
      `/v1/sessions/${s.session_id}/chat/c/stream`
    );
    expect(noTokenResume.status).toBe(401);
  });

  it("lets a browser on an allowed origin POST with a token and read the stream", async () => {
    const s = await createResetSession({ environment: "forest" });
    const preflight = await call(`/v1/sessions/${s.session_id}/chat`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"
      }
    });
    expect(preflight.status).toBe(204);
    expect(
      preflight.headers.get("Access-Control-Allow-Headers")?.toLowerCase()
    ).toContain("authorization");
    const res = await s.call(
      "/chat",
      send("POST", chatBody("multi"), {
        "Content-Type": "application/json",
        Origin: "http://localhost:5173"
      })
    );
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe(
      "http://localhost:5173"
    );
    expect((await chunksOf(res)).at(-1)?.type).toBe("finish");
  });
});
