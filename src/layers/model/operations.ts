/** @module The model gateway's session side: admitting a call, recording it in order with the steps, and reading the record. */

import * as z from "zod";
import { RoostError } from "../../errors";
import { utf8Length } from "../../json";
import { ReadBudget, truncatedField } from "../../protocol";
import {
  type ModelCall,
  ModelCallsResponseSchema
} from "../../protocol/model-calls";
import { MaxBytesSchema } from "../../protocol/read-budget";
import { defineOperation } from "../../session/operations/define";
import {
  type CallMark,
  lastCall,
  readCalls,
  writeCall
} from "../../storage/model-call-rows";

const Count = () => z.number().int().nonnegative();

/** A call's tokens as the upstream counted them, else as captured. */
const tokensOf = (record: {
  response?: { usage?: unknown };
  tokens?: { prompt_from: number; prompt: number[]; completion: number[] };
}): number => {
  const total = (record.response?.usage as { total_tokens?: unknown })
    ?.total_tokens;
  if (typeof total === "number" && Number.isFinite(total)) return total;
  const t = record.tokens;
  return t === undefined
    ? 0
    : t.prompt_from + t.prompt.length + t.completion.length;
};

/**
 * Before the upstream is asked: the credential may call the model (the
 * scope check every operation makes, revocation included), the episode
 * is running and has calls left. Answers what the call compares itself with.
 */
export const modelAdmit = defineOperation({
  input: () =>
    z.object({
      max_calls: z.number().int().positive(),
      max_tokens: z.number().int().positive(),
      max_bytes: z.number().int().positive()
    }),
  internal: true,
  scope: "model",
  mutates: false,
  events: [],
  handle: (
    { shared },
    q
  ): { episode: number; environment: string; last?: CallMark } => {
    const row = shared.requireRow();
    if (row.episode === 0)
      throw new RoostError(
        "episode_not_running",
        "Reset the session first: a model call belongs to an episode."
      );
    // A call after the episode ended belongs to no step that will ever be
    // rewarded: recorded, it would put tokens of no step in the episode's
    // training sequences. The next reset starts an episode it belongs to.
    if (row.done || row.truncated)
      throw new RoostError(
        "episode_not_running",
        "The episode has ended; reset to start another before calling the model."
      );
    const last = lastCall(shared.sql, row.episode);
    const spent = (used: number, max: number, what: string, limit: string) => {
      if (used >= max)
        throw new RoostError(
          "conflict",
          `This episode's model calls used its ${max} ${what}; reset to start another.`,
          { limit, max }
        );
    };
    spent(last?.call ?? 0, q.max_calls, "calls", "maxCalls");
    spent(last?.usedTokens ?? 0, q.max_tokens, "tokens", "maxTokens");
    spent(last?.usedBytes ?? 0, q.max_bytes, "bytes of record", "maxBytes");
    return {
      episode: row.episode,
      environment: row.environment,
      ...(last === undefined ? {} : { last })
    };
  }
});

/**
 * Once the call ended: its record and a `model.call` event, committed
 * together in the session's order. A reset while the model answered ends
 * the episode the call belonged to, so it is refused, not filed under the
 * next one; so is a call whose episode ended (a step) while it ran, as one
 * made after the end is refused before the upstream is asked.
 */
export const modelRecord = defineOperation({
  input: () =>
    z.object({
      episode: z.number().int().positive(),
      record: z.custom<Omit<ModelCall, "call" | "episode" | "step" | "at">>(),
      mark: z.object({
        messages: Count(),
        messagesHash: z.string(),
        tokens: Count(),
        tokensHash: z.string()
      }),
      model: z.string(),
      broke: z.boolean()
    }),
  internal: true,
  scope: "model",
  mutates: true,
  events: ["model.call"],
  handle: (rt, q) =>
    rt.commits.mutate("edit", undefined, async (m) => {
      if (m.row.episode !== q.episode)
        throw new RoostError(
          "conflict",
          "The episode ended while the model answered (a reset); the call was not recorded."
        );
      if (m.row.done || m.row.truncated)
        throw new RoostError(
          "episode_not_running",
          "The episode ended while the model answered; the call was not recorded. Reset to start another."
        );
      const sql = rt.shared.sql;
      const last = lastCall(sql, q.episode);
      const call = (last?.call ?? 0) + 1;
      const { record } = q;
      const stored: ModelCall = {
        call,
        episode: q.episode,
        step: m.row.steps,
        at: new Date(rt.shared.now()).toISOString(),
        ...record
      };
      // A failed call did not finish, whatever its partial answer says.
      const finish =
        record.status >= 200 && record.status < 300
          ? (
              record.response?.choices as
                | { finish_reason?: unknown }[]
                | undefined
            )?.[0]?.finish_reason
          : undefined;
      m.emit("model.call", {
        call,
        model: q.model,
        status: record.status,
        ...(typeof finish === "string" ? { finish_reason: finish } : {}),
        ...(record.tokens === undefined
          ? {}
          : {
              tokens: {
                prompt: record.tokens.prompt_from + record.tokens.prompt.length,
                completion: record.tokens.completion.length
              }
            }),
        break: q.broke
      });
      const body = JSON.stringify(stored);
      const used = {
        usedTokens: (last?.usedTokens ?? 0) + tokensOf(record),
        usedBytes: (last?.usedBytes ?? 0) + utf8Length(body)
      };
      m.onCommit(() =>
        writeCall(sql, q.episode, { call, ...q.mark, ...used }, body)
      );
      return { call };
    })
});

export const modelCalls = defineOperation({
  input: () =>
    z.object({
      episode: z.number().int().positive().optional(),
      after: Count().optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      max_bytes: MaxBytesSchema().optional()
    }),
  output: ModelCallsResponseSchema,
  scope: "observe",
  mutates: false,
  events: [],
  handle: ({ shared }, q) => {
    const row = shared.requireRow();
    const episode = q.episode ?? row.episode;
    const budget = new ReadBudget(q.max_bytes);
    const { bodies, more } = readCalls(
      shared.sql,
      episode,
      q.after ?? 0,
      q.limit ?? 100,
      budget
    );
    const calls = bodies.map((b) => JSON.parse(b) as ModelCall);
    const last = calls.at(-1)?.call;
    return {
      episode,
      calls,
      ...(more && last !== undefined ? { next_after: last } : {}),
      ...truncatedField(budget)
    };
  }
});

declare module "../../session/operations" {
  interface LayerOperations {
    modelAdmit: typeof modelAdmit;
    modelRecord: typeof modelRecord;
    modelCalls: typeof modelCalls;
  }
}
