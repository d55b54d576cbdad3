/** @module What an operation declares: its input, whether it writes, how an Idempotency-Key binds to it, its events, and one handler. */

import type * as z from "zod";
import type { ErrorCode } from "../../errors";
import type { EventType } from "../../protocol";
import type { Grant, Scope } from "../../protocol/scopes";
import type { IdempotencyKey } from "../../storage/idempotency";
import type { SessionRuntime } from "../runtime";

/** How an operation serves an agent's credential (`Operation.agent`). */
export type AgentUse = "shared" | "view" | "turn";

export interface Operation<I, O> {
  /**
   * The input every transport hands over. `dispatch` parses each call's
   * input with it, in the session, whatever the transport checked before;
   * a getter, as `lazy` gives it, so a schema is built on first use.
   */
  readonly input: () => z.ZodType<I>;
  /** What it answers, for documentation; the handler's type is the contract. */
  readonly output?: () => z.ZodType;
  /**
   * Reached only by the server's own protocols (creating a session,
   * forking one), never by a client's socket frame: a client cannot name
   * its session's id or write a fork's rows.
   */
  readonly internal?: true;
  /**
   * The scope a credential needs to run it (protocol/scopes.ts). Every
   * transport's call reaches `dispatch` with its credential's grant, so
   * this line is the whole of the operation's access rule.
   */
  readonly scope: Scope;
  /**
   * What it does for an agent's credential (a token for one agent of a
   * multi-agent session): `"shared"` serves it as anyone, `"view"`
   * answers that agent's view (the handler reads the grant), `"turn"`
   * acts as that agent (its input's `agent` is the grant's). Left out,
   * an agent's credential is refused: what it reads may hold another
   * agent's private information, and what it does would act out of turn.
   */
  readonly agent?: AgentUse;
  /** Whether it writes: a mutation runs through the queue and the commit. */
  readonly mutates: boolean;
  /**
   * How an Idempotency-Key binds: the scope it is stored under and the part
   * of the input its hash covers. Only mutations that declare it take keys.
   */
  readonly idempotency?: {
    scope(input: I): string;
    hashed(input: I): unknown;
  };
  /**
   * How a mutation sent without an Idempotency-Key is made safe to send
   * again after the platform broke the call (the first attempt may have
   * committed): `"harmless"` when doing it twice is doing it once (a timer
   * moved); `{ refused, answer }` when a second attempt that is refused with
   * `refused` proves the first committed (create finds its session, delete
   * finds none), answered then by operation `answer` (or with nothing).
   * Without it, such a mutation is sent once. Reads and keyed mutations
   * are always safe to send again.
   */
  readonly again?: "harmless" | { refused: ErrorCode; answer?: "status" };
  /** The event types it may emit, for documentation and tests. */
  readonly events: readonly EventType[];
  /** `grant` is the caller's: an agent's credential reads that agent's view. */
  handle(
    rt: SessionRuntime,
    input: I,
    idem?: IdempotencyKey,
    grant?: Grant
  ): Promise<O> | O;
}

/** Declares an operation; the identity, for inference. */
export const defineOperation = <I, O>(op: Operation<I, O>): Operation<I, O> =>
  op;

/** What running a tool may emit. */
export const TOOL_EVENTS = [
  "tool.started",
  "result",
  "update",
  "tool.finished"
] as const satisfies readonly EventType[];

/** What a tool's writes, or an edit, may emit. */
export const WRITE_EVENTS = [
  "store.changed",
  "state.changed",
  "message"
] as const satisfies readonly EventType[];
