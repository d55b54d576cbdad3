// A chat stream live while its run goes on: a reconnect replays it from
// the start, and one after the object was aborted mid-run takes back the
// lost pass and streams the rest.

import { describe, expect, it } from "vitest";
import { flags } from "../fixtures/environments";
import { chat, chunksOf, started } from "./chat-helpers";
import { createResetSession } from "./helpers";
import { abort, stubOf } from "./session-helpers";

describe("POST /v1/sessions/:id/chat: reconnecting", () => {
  it("streams live while the run is going, and a reconnect replays it from the start", async () => {
    const s = await createResetSession({ environment: "forest" });
    const gate = `chat-${crypto.randomUUID()}`;
    const res = await chat(s, `gate:${gate}`, "live-chat");
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // The wait tool's call streams before the tool returns.
    while (!seen.includes('"tool-input-available"')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += value;
    }
    await started(gate);
    // Another chat id, or none going: nothing to resume.
    expect((await s.call("/chat/other-chat/stream")).status).toBe(204);
    const again = await s.call("/chat/live-chat/stream");
    expect(again.status).toBe(200);
    expect(again.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    flags.open.add(gate);
    const replayed = await chunksOf(again);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    const live = seen
      .split("\n\n")
      .filter((b) => b.startsWith("data: "))
      .map((b) => b.slice(6));
    expect(live.at(-1)).toBe("[DONE]");
    // The replay says exactly what the live stream said.
    expect(replayed).toEqual(live.slice(0, -1).map((e) => JSON.parse(e)));
    expect(
      replayed.filter((c) => c.type === "text-delta").at(-1)
    ).toMatchObject({ delta: `opened ${gate}` });
    // Once the run ended there is nothing to resume.
    expect((await s.call("/chat/live-chat/stream")).status).toBe(204);
  });

  it("survives the object being aborted mid-run: a reconnect takes back the lost pass and streams the rest", async () => {
    const s = await createResetSession({ environment: "forest" });
    const gate = `chat-abort-${crypto.randomUUID()}`;
    const res = await chat(s, `gate:${gate}`, "evicted");
    const stub = stubOf(s.session_id);
    await started(gate);
    await abort(stub);
    // The cut stream ends; a reconnecting client replaces what it said.
    await res.text().catch(() => "");
    const again = await s.call("/chat/evicted/stream");
    expect(again.status).toBe(200);
    flags.open.add(gate);
    const chunks = await chunksOf(again);
    const after = chunks.slice(
      chunks.findIndex((c) => c.type === "reset-step")
    );
    expect(after[0]).toEqual({ type: "reset-step" });
    // The aborted pass's call is taken back; its retry is announced once.
    expect(
      after
        .filter((c) => c.type === "tool-input-available")
        .map((c) => c.toolName)
    ).toEqual(["wait"]);
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      messageMetadata: { state: "completed", outcome: "answered" }
    });
  });
});
