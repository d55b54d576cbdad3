/** @module A decision model that replays a script: for tests, demos and replaying recorded runs. */

import { cloneJson, type JsonObject, type JsonValue } from "../json";
import { TEXT_RESPONSE } from "../tree/define-tree";
import type {
  Decision,
  DecisionModel,
  DecisionRequest,
  TextRequest
} from "../tree/types";

/** A decision with only `tool` required; the rest default to empty, false and "". */
export interface PartialDecision {
  tool: string;
  /** Undefined values are dropped, so a script can return a union of literals whose keys differ. */
  inputs?: { [key: string]: JsonValue | undefined };
  end?: boolean;
  message?: string;
  impossible?: boolean;
  reasoning?: string;
}

/** Decisions in order, or a function of the request and the 0-based decision index. */
export type Script =
  | readonly PartialDecision[]
  | ((
      request: DecisionRequest,
      index: number
    ) => PartialDecision | Promise<PartialDecision>);

export interface ScriptedModelOptions {
  /** Defaults to "scripted". */
  name?: string;
  /** The final answer, also the text of the `text_response` past the script's end. Default "Done.". */
  final?: string | ((request: TextRequest) => string);
}

const complete = (partial: PartialDecision): Decision => ({
  tool: partial.tool,
  // A JSON copy: a caller editing the decision cannot change the script, and undefined values go.
  inputs: cloneJson(partial.inputs ?? {}) as JsonObject,
  end: partial.end ?? false,
  message: partial.message ?? "",
  impossible: partial.impossible ?? false,
  ...(partial.reasoning === undefined ? {} : { reasoning: partial.reasoning })
});

/**
 * A model that decides by script and never calls out, so runs are repeatable.
 * An array script is indexed by `decisionIndex`; past its end the model
 * answers with `text_response`, which only the root offers.
 *
 * @example
 * const model = scriptedModel(
 *   [{ tool: "search" }, { tool: "query", inputs: { q: "frogs" } }],
 *   { final: "Found 3 frogs." }
 * );
 */
export const scriptedModel = (
  script: Script,
  options: ScriptedModelOptions = {}
): DecisionModel => {
  const final = (request: TextRequest): string =>
    typeof options.final === "function"
      ? options.final(request)
      : (options.final ?? "Done.");
  return {
    name: options.name ?? "scripted",
    async decide(request, { signal, decisionIndex }) {
      signal?.throwIfAborted();
      if (typeof script === "function") {
        return complete(await script(request, decisionIndex));
      }
      const next = script[decisionIndex];
      if (next !== undefined) return complete(next);
      return complete({
        tool: TEXT_RESPONSE,
        inputs: {
          text: final({ treeData: request.treeData, reason: "ended" })
        },
        end: true
      });
    },
    async respond(request, { signal }) {
      signal?.throwIfAborted();
      return final(request);
    }
  };
};
