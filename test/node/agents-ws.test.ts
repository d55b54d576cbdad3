// Two agents of one game, each on its own `ws` socket against wrangler dev:
// each steps as itself, a move out of turn is refused with 409 naming whose
// turn it is, and both sockets see the game's steps in the same order.
import { describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { createSignal } from "../shared/signal";
import { type Frame, framesOf } from "./helpers/frames";

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

/** One agent's socket: sends its own step frames, waits for their replies. */
const player = (url: string, token: string, agent: string) => {
  const ws = new WebSocket(url, ["roost.v1", `roost.token.${token}`]);
  const frames: Frame[] = [];
  const signal = createSignal();
  ws.on("message", (data) => {
    frames.push(...framesOf(data));
    signal.notify();
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let n = 0;
  const mark = async (cell: number) => {
    const id = `${agent}-${++n}`;
    ws.send(
      JSON.stringify({
        type: "step",
        id,
        agent,
        action: {
          role: "assistant",
          tool_calls: [
            {
              id: `c${n}`,
              type: "function",
              function: { name: "mark", arguments: JSON.stringify({ cell }) }
            }
          ]
        }
      })
    );
    await signal.until(() => frames.some((f) => f.id === id), {
      what: `the reply to ${id}`
    });
    return frames.find((f) => f.id === id) as Frame & {
      ok: boolean;
      value?: Record<string, unknown>;
      error?: { code: string; message: string; details?: unknown };
    };
  };
  const steps = () =>
    frames
      .filter((f) => f.type === "step")
      .map((f) => (f as Frame & { agent?: string }).agent);
  const until = (what: string, predicate: () => boolean) =>
    signal.until(predicate, { what });
  return { ws, opened, mark, steps, until };
};

describe("two agents on two sockets", () => {
  it("play a game to the end, each as itself, out-of-turn moves refused", async () => {
    const { session_id, token, ws_url } = (await post("/v1/sessions", {
      environment: "tictactoe"
    })) as { session_id: string; token: string; ws_url: string };
    await post(`/v1/sessions/${session_id}/reset`, {}, token);
    const x = player(ws_url, token, "x");
    const o = player(ws_url, token, "o");
    await Promise.all([x.opened, o.opened]);

    const early = await o.mark(5);
    expect(early).toMatchObject({
      ok: false,
      error: {
        code: "not_your_turn",
        message: "It is not o's turn: it is x's.",
        details: { agent: "o", turn: ["x"] }
      }
    });
    expect((await x.mark(1)).value).toMatchObject({ agent: "x", turn: ["o"] });
    expect((await o.mark(4)).value).toMatchObject({ agent: "o", turn: ["x"] });
    await x.mark(2);
    await o.mark(5);
    const last = await x.mark(3);
    expect(last.value).toMatchObject({
      agent: "x",
      turn: [],
      done: true,
      rewards: { x: 1, o: -1 }
    });

    // Both sockets saw the same five steps, in the game's order.
    const order = ["x", "o", "x", "o", "x"];
    await x.until("x's five steps", () => x.steps().length === 5);
    await o.until("o's five steps", () => o.steps().length === 5);
    expect(x.steps()).toEqual(order);
    expect(o.steps()).toEqual(order);
    const state = (await (
      await fetch(`${base}/v1/sessions/${session_id}/state`, {
        headers: { authorization: `Bearer ${token}` }
      })
    ).json()) as { state: { board: string } };
    expect(state.state.board).toBe("xxxoo....");
    x.ws.close();
    o.ws.close();
  });
});
