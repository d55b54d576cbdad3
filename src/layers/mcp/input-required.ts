/**
 * @module Input-required results (2026-07-28, SEP-2322): a tool or prompt
 * that asks a stateless client answers `resultType: "input_required"` with
 * what it asks and a sealed requestState; the client calls again with
 * `inputResponses` and that state, and the call runs again from its start
 * with every answer so far (request-state.ts keeps them).
 */

import * as z from "zod";
import type { JsonObject } from "../../json";
import { lazy } from "../../lazy";
import { JSONRPC_ERRORS, MCP_META } from "../../protocol";
import { JsonObjectSchema } from "../../protocol/json-value";
import {
  type CallerClient,
  type InputRequired,
  MissingCapability
} from "../../tools/ask";
import { replayedClient } from "./client-asks";
import type { Exchange } from "./exchange";
import { RpcFailure } from "./failure";
import { openState, sealState } from "./request-state";

const ResumeSchema = lazy(() =>
  z.looseObject({
    inputResponses: z.record(z.string(), JsonObjectSchema()).optional(),
    requestState: z
      .string()
      .max(64 * 1024)
      .optional()
  })
);

export interface Resumed {
  /** Every answer so far: the state's and this request's. */
  answers: Record<string, JsonObject>;
  /** The session the state names, if it names one. */
  session?: string;
}

/**
 * The answers a request brings: those sealed in its requestState (which
 * must be one Roost made for this call) and its inputResponses.
 */
export const resumed = async (
  exchange: Exchange,
  params: unknown,
  call: { method: string; name: string }
): Promise<Resumed> => {
  const r = ResumeSchema().safeParse(params ?? {});
  if (!r.success) {
    throw new RpcFailure({
      code: JSONRPC_ERRORS.invalidParams,
      message:
        "Invalid params: inputResponses is an object of results by name, requestState a string this server sent."
    });
  }
  const { inputResponses = {}, requestState } = r.data;
  if (requestState === undefined) return { answers: inputResponses };
  const state = await openState(await exchange.keys(), requestState, call);
  if (state === undefined) {
    throw new RpcFailure({
      code: JSONRPC_ERRORS.invalidParams,
      message: `Invalid requestState: it is not one this server sent for ${call.method} ${call.name} (changed, expired, or another call's). Call again without it to start over.`
    });
  }
  return {
    answers: { ...state.answers, ...inputResponses },
    ...(state.session === undefined ? {} : { session: state.session })
  };
};

/** What a stateless request's client declared. */
export const declaredCapabilities = (exchange: Exchange): JsonObject => {
  const declared = exchange.meta?.[MCP_META.clientCapabilities];
  return typeof declared === "object" && declared !== null
    ? (declared as JsonObject)
    : {};
};

/** The client a prompt or resource may ask: a stateless one only (its answers come with the request). */
export const offerClient = (
  exchange: Exchange,
  answers: Record<string, JsonObject>
): CallerClient | undefined =>
  exchange.revision.modern
    ? replayedClient(declaredCapabilities(exchange), answers)
    : undefined;

/** The input-required result, its state sealing the answers so far. */
export const inputRequiredResult = async (
  exchange: Exchange,
  asked: InputRequired,
  call: { method: string; name: string },
  answers: Record<string, JsonObject>
) => ({
  resultType: "input_required",
  inputRequests: asked.requests,
  requestState: await sealState(await exchange.keys(), {
    ...call,
    answers,
    ...(exchange.session === undefined ? {} : { session: exchange.session })
  })
});

/** MCP's -32021: what the client must declare for this request. */
export const missingCapability = (error: MissingCapability): RpcFailure =>
  new RpcFailure({
    code: JSONRPC_ERRORS.missingCapability,
    message: error.message,
    data: { requiredCapabilities: error.capabilities }
  });

export const isMissingCapability = (
  error: unknown
): error is MissingCapability => error instanceof MissingCapability;
