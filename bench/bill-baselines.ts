/**
 * @module Scenario 11's references beside Roost, metered with the same
 * RowMeter: the bare Durable Object's one-row append over RPC, and the
 * Agents SDK's `setState` appending one object over its socket.
 */

import WebSocket from "ws";
import { type Measured, N, run, STEPS_PER_EPISODE } from "./bill-measure";
import type { Api } from "./lib/api";
import { PRICES } from "./lib/prices";
import { progress } from "./lib/stats";

export const baselineRow = async (
  api: Api,
  pgid: number
): Promise<Measured> => {
  progress("11 bill: bare DO append");
  let written = 0;
  let read = 0;
  const timing = await run(pgid, N * STEPS_PER_EPISODE, async (i) => {
    const r = (await api.post("/bench/baseline/bill/billed", { n: i })) as {
      rows: { rowsWritten: number; rowsRead: number };
    };
    written += r.rows.rowsWritten;
    read += r.rows.rowsRead;
  });
  const n = N * STEPS_PER_EPISODE;
  return {
    operation: "bare DO: append one row (RPC)",
    ...timing,
    rowsWritten: written / n,
    rowsRead: read / n,
    requests: 1
  };
};

/** The SDK's RPC over its socket, as `AgentClient.call` sends it. */
const agentRpc = (ws: WebSocket, method: string, args: unknown[]) =>
  new Promise<unknown>((resolve, reject) => {
    const id = crypto.randomUUID();
    const onMessage = (data: Buffer) => {
      const text = data.toString("utf8");
      if (!text.includes(id)) return;
      const frame = JSON.parse(text) as {
        success: boolean;
        done?: boolean;
        result?: unknown;
        error?: string;
      };
      if (!frame.success) reject(new Error(frame.error));
      else if (frame.done) {
        ws.off("message", onMessage);
        resolve(frame.result);
      }
    };
    ws.on("message", onMessage);
    ws.send(JSON.stringify({ args, id, method, type: "rpc" }));
  });

export const agentRow = async (api: Api, pgid: number): Promise<Measured> => {
  progress("11 bill: Agents SDK setState");
  const url = `${api.baseUrl.replace(/^http/, "ws")}/bench/agents/bench-agent/bill?_pk=${crypto.randomUUID()}`;
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("error", reject);
  });
  await agentRpc(ws, "bill", []);
  const n = N * STEPS_PER_EPISODE;
  const timing = await run(pgid, n, (i) => agentRpc(ws, "append", [i]));
  const rows = (await agentRpc(ws, "bill", [])) as {
    rowsWritten: number;
    rowsRead: number;
  };
  ws.close();
  return {
    operation: `Agents SDK: setState appending one object (socket), ${n} items at most`,
    ...timing,
    rowsWritten: rows.rowsWritten / n,
    rowsRead: rows.rowsRead / n,
    requests: 1 / PRICES.socketMessagesPerRequest
  };
};
