import { describe, expect, it } from "vitest";
import { action, createSession, send } from "./helpers";
import { hasType, openSocket } from "./ws-helpers";

describe("tokens", () => {
  it("never appear in event frames, the event log or session reads", async () => {
    const s = await createSession({ environment: "lab" });
    await s.call("/reset", send("POST", {}));
    await s.call("/step", send("POST", action("note", { text: "hello" })));
    const sock = await openSocket(s.session_id, s.token, "?after=0");
    sock.send({ type: "call", id: "c", tool: "bump", arguments: {} });
    const frames = await sock.until((f) => f.some((x) => x.id === "c"));
    await sock.until(hasType("step"));
    const reads = await Promise.all(
      [
        "",
        "/state",
        "/environment",
        "/messages",
        "/frame",
        "/events?after=0"
      ].map(async (p) => (await s.call(p)).text())
    );
    const mac = s.token.split(".").at(-1)!;
    const everything = JSON.stringify(frames) + reads.join("");
    expect(everything).not.toContain(s.token);
    expect(everything).not.toContain(mac);
    sock.ws.close();
  });
});
