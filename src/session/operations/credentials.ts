/**
 * @module Scoped credentials: a token's times (the worker signs them, the
 * session's clock dates them, so revocation compares like with like), a
 * scope's revocation, and the one read only `grade` may make.
 */

import * as z from "zod";
import { rosterOf } from "../../environment/agents";
import { RoostError } from "../../errors";
import {
  CursorSchema,
  MaxBytesSchema,
  ReadBudget,
  truncatedField
} from "../../protocol";
import {
  HiddenResponseSchema,
  RevokeRequestSchema,
  TokenRequestSchema
} from "../../protocol/http-tokens";
import { defineOperation } from "./define";
import { offsetOf } from "./paging";
import { statePage } from "./state-page";

/**
 * When a new token of a scope is dated, and until when it holds. Never
 * before the scope's revocation, so a token minted in the millisecond of a
 * revoke still works.
 */
export const issueToken = defineOperation({
  input: TokenRequestSchema,
  // A client's socket could not sign what it answers: minting is the
  // worker's route (POST …/tokens), which signs.
  internal: true,
  scope: "control",
  mutates: false,
  events: [],
  handle: ({ shared }, { scope, ttl_s, agent }) => {
    const row = shared.requireRow();
    if (agent !== undefined) {
      const roster = rosterOf(shared.registry.get(row.environment)) ?? [];
      if (!roster.includes(agent)) {
        throw new RoostError(
          "invalid_request",
          roster.length === 0
            ? `${row.environment} has one agent: leave "agent" out.`
            : `${row.environment} has no agent "${agent}"; its agents are ${roster.join(", ")}.`,
          { agent, agents: roster }
        );
      }
    }
    const now = shared.now();
    return {
      scope,
      issuedAt: Math.max(now, shared.revocations()[scope] ?? 0),
      expiresAt: Math.ceil(now / 1000) + ttl_s,
      ...(agent === undefined ? {} : { agent })
    };
  }
});

/**
 * Refuses every token of `scope` signed until now, and closes the sockets
 * opened with one. Revoking again only moves the cutoff, so it is safe to
 * send twice.
 */
export const revokeTokens = defineOperation({
  input: RevokeRequestSchema,
  scope: "control",
  mutates: true,
  again: "harmless",
  events: [],
  handle: async (rt, { scope }) => {
    const shared = rt.shared;
    shared.requireRow();
    const before = shared.now() + 1;
    // Behind the mutations in flight, like every write of the session.
    await shared.queue.run(async () =>
      shared.storage.transactionSync(() => shared.revoke(scope, before))
    );
    rt.onRevoked(scope, before);
    return { scope, before };
  }
});

/** The hidden store of the episode, a page at a time: for a grader, never for the model. */
export const readHidden = defineOperation({
  input: () =>
    z.object({
      cursor: CursorSchema().optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: HiddenResponseSchema,
  scope: "grade",
  mutates: false,
  events: [],
  handle: (rt, q) =>
    rt.read((parts) => {
      const budget = new ReadBudget(q.max_bytes);
      const page = statePage(
        parts.hidden,
        parts.hidden.keys(),
        offsetOf(q.cursor),
        budget,
        undefined
      );
      return {
        hidden: page.values,
        ...(page.next === undefined ? {} : { next_cursor: String(page.next) }),
        ...truncatedField(budget)
      };
    })
});
