/**
 * @module The model gateway layer: an OpenAI-compatible endpoint per
 * session (`…/v1/sessions/:id/model/v1/chat/completions`) in front of the
 * deployment's model server, recording every call, with the token ids and
 * logprobs the server gives, in the session's order beside its steps
 * (`GET …/model/calls`). A worker without it carries none of it.
 */

import type { Layer } from "../../http/layer";
import { openAIErrors } from "./openai-error";
import { modelAdmit, modelCalls, modelRecord } from "./operations";
import type { ModelGatewayOptions } from "./options";
import { modelRoutes } from "./routes";

export type { ModelGatewayOptions, Upstream } from "./options";
// Re-exported so the declarations of `roost-edge/layers/model` load the
// file that declares them in LayerOperations.
export { modelAdmit, modelCalls, modelRecord };

export const modelGateway = (options: ModelGatewayOptions = {}): Layer => ({
  name: "model",
  routes: modelRoutes(options),
  // Everything under the base URL a harness's OpenAI client is given;
  // the record (…/model/calls) is Roost's, read by Roost's clients.
  around: [["/v1/sessions/:id/model/v1/*", openAIErrors]],
  operations: { modelAdmit, modelRecord, modelCalls }
});
