/**
 * @module Scenario 8's two contenders as it drives them: Roost's session
 * over its socket (a `step` frame answered by a `reply`) and the Agents
 * SDK's `Agent` over its own (an `rpc` frame answered by an `rpc` reply,
 * as its `AgentClient.call` sends and reads them).
 */

import { type BenchSession, stepBody } from "./lib/api";
import { type Arrival, has, Peer, parse, typeIs } from "./lib/peer";

/** A contender as the scenario sees it: instances, clients, one append call. */
export interface Contender<I> {
  /** Opens a client socket to instance `instance`. */
  connect(instance: I): Promise<Peer>;
  /** Sends one append of object `n` on `peer`; resolves at its reply (rejects on an error reply). */
  append(peer: Peer, n: number): Promise<Arrival>;
  /** Whether a frame is the update every client receives for an append. */
  isUpdate(data: Buffer): boolean;
}

// ---- Roost: a session of the bench environment; each `put` step stores object n.

/** The event types a Roost frame carries: its own, or its events' when it is a batch. */
const roostTypes = (data: Buffer): string[] => {
  const frame = parse<{ type: string; events?: { type: string }[] }>(data);
  return frame.type === "batch"
    ? (frame.events ?? []).map((e) => e.type)
    : [frame.type];
};

let roostIds = 0;

export const roost: Contender<BenchSession> = {
  connect: (s) =>
    Peer.open(s.wsUrl, ["roost.v1", `roost.token.${s.token}`], (data) =>
      typeIs(data, "session.snapshot")
    ),
  async append(peer, n) {
    const id = `append-${roostIds++}`;
    const reply = peer.next(
      (data) => typeIs(data, "reply") && parse<{ id: string }>(data).id === id,
      `Roost reply to ${id}`
    );
    peer.send({ type: "step", id, ...(stepBody("put", { n }) as object) });
    const arrival = await reply;
    const frame = parse<{ ok: boolean; error?: { message?: string } }>(
      arrival.data
    );
    if (!frame.ok)
      throw new Error(`Roost step failed: ${JSON.stringify(frame.error)}`);
    return arrival;
  },
  // Roost's frames are small: parsing them costs the client next to
  // nothing. The substring test lets a batch through to the parse.
  isUpdate: (data) =>
    has(data, '"type":"step"') && roostTypes(data).includes("step")
};

// ---- The Agents SDK: a BenchAgent per name, called as its AgentClient calls.

interface RpcReply {
  type: "rpc";
  id: string;
  success: boolean;
  done?: boolean;
  result?: unknown;
  error?: string;
}

/** An `rpc` reply frame's error, thrown by `rpc`. */
export class RpcError extends Error {}

/** Sends the SDK's RPC frame and answers its final reply (rejects on `success: false`). */
export const rpc = async (
  peer: Peer,
  method: string,
  args: unknown[]
): Promise<{ arrival: Arrival; result: unknown }> => {
  // As `AgentClient.call` builds it: a random UUID as the id.
  const id = crypto.randomUUID();
  const reply = peer.next((data) => {
    if (!typeIs(data, "rpc")) return false;
    const frame = parse<RpcReply>(data);
    return frame.id === id && (frame.done === true || !frame.success);
  }, `Agents SDK reply to ${method}`);
  peer.send({ args, id, method, type: "rpc" });
  const arrival = await reply;
  const frame = parse<RpcReply>(arrival.data);
  if (!frame.success) throw new RpcError(frame.error ?? "unknown error");
  return { arrival, result: frame.result };
};

export const agentsSdk = (baseUrl: string): Contender<string> => ({
  // As partysocket connects: /<prefix>/<binding, kebab-case>/<name>?_pk=<connection id>.
  connect: (name) =>
    Peer.open(
      `${baseUrl.replace(/^http/, "ws")}/bench/agents/bench-agent/${name}?_pk=${crypto.randomUUID()}`,
      [],
      // The last of the SDK's connect frames (identity, state, MCP servers).
      (data) => typeIs(data, "cf_agent_mcp_servers")
    ),
  append: async (peer, n) => (await rpc(peer, "append", [n])).arrival,
  // Not parsed: the SDK's client parses each state frame, but here the
  // figures are the server's, as for Roost.
  isUpdate: (data) => typeIs(data, "cf_agent_state")
});
