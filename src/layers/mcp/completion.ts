/**
 * @module MCP's completion/complete: values for a prompt's argument or a
 * resource template's variable, from the completers the environment
 * declares (`complete` on a prompt or template). One without a completer
 * completes to nothing.
 */

import * as z from "zod";
import type { Completer } from "../../environment/mcp-offer";
import { lazy } from "../../lazy";
import { authorFailed, invalidParams, parseParams } from "./failure";
import type { McpTarget } from "./target";

/** MCP's most values in one answer. */
const MAX_VALUES = 100;

const CompleteParamsSchema = lazy(() =>
  z.object({
    ref: z.discriminatedUnion("type", [
      z.object({ type: z.literal("ref/prompt"), name: z.string() }),
      z.object({ type: z.literal("ref/resource"), uri: z.string() })
    ]),
    argument: z.object({ name: z.string(), value: z.string() }),
    context: z
      .object({ arguments: z.record(z.string(), z.string()).optional() })
      .optional()
  })
);

export const complete = async (target: McpTarget, params: unknown) => {
  const { ref, argument, context } = parseParams(
    CompleteParamsSchema(),
    params
  );
  const offer = (await target.environment()).mcp;
  let completers: Record<string, Completer> | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = offer?.prompts?.[ref.name];
    if (prompt === undefined && !["instructions", "task"].includes(ref.name)) {
      throw invalidParams(`Unknown prompt: ${ref.name}.`);
    }
    completers = prompt?.complete;
  } else {
    const template = offer?.resourceTemplates?.[ref.uri];
    if (template === undefined && offer?.resources?.[ref.uri] === undefined) {
      throw invalidParams(`Unknown resource or template: ${ref.uri}.`);
    }
    completers = template?.complete;
  }
  const completer = completers?.[argument.name];
  let values: readonly string[] = [];
  try {
    values =
      completer === undefined
        ? []
        : await completer(argument.value, {
            arguments: context?.arguments ?? {}
          });
  } catch (error) {
    throw authorFailed(`Completion of ${argument.name}`, error);
  }
  return {
    completion: {
      values: values.slice(0, MAX_VALUES),
      total: values.length,
      hasMore: values.length > MAX_VALUES
    }
  };
};
