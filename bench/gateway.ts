/**
 * @module Scenario 17: the model gateway. One harness's calls through a
 * session's gateway against the same calls straight to the upstream (a
 * stand-in that answers as vLLM does with token ids on, on loopback, so
 * the difference is the gateway's own: admitting, forwarding, capturing,
 * recording), unstreamed and streamed, p50 and p99; and what a call
 * bills. The conversation grows by a turn each call, as an agent's does.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerAsVllm, STUB_MODEL } from "../test/node/fake-vllm";
import type { Api, BenchSession } from "./lib/api";
import type { Bill } from "./lib/bill";
import { median, percentile, progress } from "./lib/stats";
import { ms, type Row, times } from "./lib/table";

const SCENARIO = "17 Model gateway";
const CALLS = 200;

export interface Upstream {
  url: string;
  close(): Promise<void>;
}

/** The vLLM stand-in on a free loopback port. */
export const startUpstream = async (): Promise<Upstream> => {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    answerAsVllm(JSON.parse(Buffer.concat(chunks).toString("utf8")), res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      })
  };
};

/** The n-th request of a conversation: n turns of the counter already played. */
export const conversation = (n: number) => {
  const messages: object[] = [{ role: "user", content: "steps:1000000" }];
  for (let i = 1; i <= n; i++)
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `call_${i}`,
            type: "function",
            function: { name: "incr", arguments: "{}" }
          }
        ]
      },
      { role: "tool", tool_call_id: `call_${i}`, content: `counter=${i}` }
    );
  return messages;
};

const call = async (
  url: string,
  token: string | undefined,
  n: number,
  stream: boolean
): Promise<number> => {
  const started = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
    },
    body: JSON.stringify({
      model: STUB_MODEL,
      messages: conversation(n),
      stream,
      // What the gateway adds for the upstream, sent straight too.
      return_token_ids: true,
      logprobs: true
    })
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`model call → ${res.status}: ${text}`);
  return performance.now() - started;
};

const billOf = (api: Api, s: BenchSession) =>
  api.post(`/bench/bill/${s.id}`, {}) as Promise<Bill>;

export const gatewayScenario = async (
  api: Api,
  upstream: Upstream
): Promise<Row[]> => {
  const rows: Row[] = [];
  for (const stream of [false, true]) {
    const how = stream ? "streamed" : "unstreamed";
    progress(`17 gateway: ${how} calls`);
    const s = await api.create("counter", { target: 1_000_000 });
    await api.reset(s);
    const gateway = `${api.baseUrl}/v1/sessions/${s.id}/model/v1/chat/completions`;
    const direct = `${upstream.url}/v1/chat/completions`;
    // Warm both paths, then start the bill from zero.
    await call(direct, undefined, 0, stream);
    await call(gateway, s.token, 0, stream);
    await billOf(api, s);
    const via: number[] = [];
    const straight: number[] = [];
    // Alternated, so a slower moment of the machine falls on both.
    for (let i = 1; i <= CALLS; i++) {
      via.push(await call(gateway, s.token, i, stream));
      straight.push(await call(direct, undefined, i, stream));
    }
    const bill = await billOf(api, s);
    const p50 = median(via) - median(straight);
    const p99 = percentile(via, 99) - percentile(straight, 99);
    rows.push({
      scenario: SCENARIO,
      measure: `${how === "unstreamed" ? "an" : "a"} ${how} call through the gateway, recorded with its token ids (median of ${CALLS}, conversations of 1 to ${CALLS} turns)`,
      roost: `p50 ${ms(median(via))}, p99 ${ms(percentile(via, 99))}`,
      reference: `straight to the upstream: p50 ${ms(median(straight))}, p99 ${ms(percentile(straight, 99))}`,
      ratio: `${times(median(via) / median(straight))}; +${ms(p50)} p50, +${ms(p99)} p99`,
      target: "",
      met: null
    });
    const per = (n: number) => (n / CALLS).toFixed(2);
    rows.push({
      scenario: SCENARIO,
      measure: `what ${how === "unstreamed" ? "an" : "a"} ${how} call bills (rows read / written, requests to the object)`,
      roost: `${per(bill.rows.rowsRead + bill.deferred.rowsRead)} / ${per(bill.rows.rowsWritten + bill.deferred.rowsWritten)} rows, ${per(bill.requests + bill.alarms)} requests`,
      reference: "a counter step: 2.90 / 3.10 rows, 1 request (scenario 11)",
      ratio: "",
      target: "",
      met: null
    });
  }
  return rows;
};
