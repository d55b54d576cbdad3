import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { createSignal } from "../shared/signal";
import { type Frame, framesOf } from "./helpers/frames";

// Resume over a real network socket against wrangler dev, with the `ws` client.
const base = inject("baseUrl");

const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {})
    },
    body: JSON.stringify(body)
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
};

const incr = {
  action: {
    tool_calls: [
      { id: "c", type: "function", function: { name: "incr", arguments: "{}" } }
    ]
  }
};

const open = (url: string, token: string) => {
  const ws = new WebSocket(url, ["roost.v1", `roost.token.${token}`]);
  /** Every frame, a batch's events in their place. */
  const frames: Frame[] = [];
  /** Every message as it came. */
  const messages: Frame[] = [];
  const signal = createSignal();
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as Frame);
    frames.push(...framesOf(data));
    signal.notify();
  });
  const until = async (predicate: (f: Frame[]) => boolean) => {
    await signal.until(() => predicate(frames), {
      what: "the expected frames"
    });
    return frames;
  };
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, frames, messages, until, opened };
};

const steps = (frames: Frame[]) =>
  frames.filter((f) => f.type === "step").length;

describe("WebSocket against wrangler dev", () => {
  it("resumes after a disconnect with exactly the missed events", async () => {
    const created = (await post("/v1/sessions", {
      environment: "counter"
    })) as { session_id: string; token: string; ws_url: string };
    const { session_id: id, token, ws_url } = created;
    await post(`/v1/sessions/${id}/reset`, {}, token);

    const first = open(ws_url, token);
    await first.opened;
    expect(first.ws.protocol).toBe("roost.v1");
    await first.until((f) => f.some((x) => x.type === "session.snapshot"));
    await post(`/v1/sessions/${id}/step`, incr, token);
    await first.until((f) => steps(f) === 1);
    const last = first.frames.filter((f) => typeof f.seq === "number").at(-1)!
      .seq!;
    first.ws.terminate();

    await post(`/v1/sessions/${id}/step`, incr, token);
    await post(`/v1/sessions/${id}/step`, incr, token);
    const logged = (await (
      await fetch(`${base}/v1/sessions/${id}/events?after=${last}`, {
        headers: { authorization: `Bearer ${token}` }
      })
    ).json()) as { events: Frame[] };

    const second = open(`${ws_url}?after=${last}`, token);
    await second.opened;
    const replayed = await second.until((f) => steps(f) === 2);
    expect(replayed).toEqual(logged.events);
    expect(replayed[0]!.seq).toBe(last + 1);
    second.ws.close();
  });

  it("sends each step as one message to every socket, one per event with ?batch=0", async () => {
    const {
      session_id: id,
      token,
      ws_url
    } = (await post("/v1/sessions", {
      environment: "counter"
    })) as { session_id: string; token: string; ws_url: string };
    await post(`/v1/sessions/${id}/reset`, {}, token);
    const sockets = Array.from({ length: 5 }, () => open(ws_url, token));
    const single = open(`${ws_url}?batch=0`, token);
    for (const s of [...sockets, single]) {
      await s.opened;
      await s.until((f) => f.some((x) => x.type === "session.snapshot"));
    }
    for (let i = 0; i < 3; i++)
      await post(`/v1/sessions/${id}/step`, incr, token);
    const expected = (await single.until((f) => steps(f) === 3)).filter(
      (f) => typeof f.seq === "number"
    );
    // Each event alone on the socket that asked for it.
    expect(single.messages.length).toBe(1 + expected.length);
    for (const s of sockets) {
      const got = (await s.until((f) => steps(f) === 3)).filter(
        (f) => typeof f.seq === "number"
      );
      expect(got).toEqual(expected);
      // Snapshot, then one message per step.
      expect(s.messages.map((m) => m.type)).toEqual([
        "session.snapshot",
        "batch",
        "batch",
        "batch"
      ]);
    }

    // A replay from inside a step's batch starts at the next event.
    const middle = expected[1]!.seq!;
    const again = open(`${ws_url}?after=${middle}`, token);
    await again.opened;
    const replayed = await again.until((f) => steps(f) === 3);
    expect(replayed).toEqual(expected.slice(2));
    for (const s of [...sockets, single, again]) s.ws.close();
  });

  it("closes with 4403 for a token of another session", async () => {
    const a = (await post("/v1/sessions", { environment: "counter" })) as {
      ws_url: string;
    };
    const b = (await post("/v1/sessions", { environment: "counter" })) as {
      token: string;
    };
    const sock = open(a.ws_url, b.token);
    const code = await new Promise<number>((r) =>
      sock.ws.once("close", (c) => r(c))
    );
    expect(code).toBe(4403);
  });

  it("runs any client operation by name with an op frame, and deletes last with the reply before the 4404 close", async () => {
    const s = (await post("/v1/sessions", { environment: "counter" })) as {
      session_id: string;
      token: string;
      ws_url: string;
    };
    await post(`/v1/sessions/${s.session_id}/reset`, {}, s.token);
    const sock = open(s.ws_url, s.token);
    await sock.opened;
    await sock.until((f) => f.some((x) => x.type === "session.snapshot"));
    const reply = async (frame: object, id: string) => {
      sock.ws.send(JSON.stringify({ ...frame, id }));
      const frames = await sock.until((f) => f.some((x) => x.id === id));
      return frames.find((x) => x.id === id)!;
    };
    expect(
      await reply(
        { type: "op", op: "patchState", input: { key: "count", value: 3 } },
        "p"
      )
    ).toMatchObject({ type: "reply", ok: true });
    expect(await reply({ type: "op", op: "readState" }, "r")).toMatchObject({
      ok: true,
      value: { state: { count: 3 } }
    });
    expect(await reply({ type: "op", op: "tools" }, "t")).toMatchObject({
      ok: true,
      value: {
        tools: [{ function: { name: "incr" } }, { function: { name: "decr" } }]
      }
    });
    expect(
      await reply({ type: "op", op: "forkChunk", input: {} }, "i")
    ).toMatchObject({ ok: false, error: { code: "invalid_request" } });
    const closed = new Promise<number>((r) =>
      sock.ws.once("close", (c) => r(c))
    );
    expect(await reply({ type: "op", op: "destroy" }, "d")).toMatchObject({
      ok: true
    });
    expect(await closed).toBe(4404);
  });
});
