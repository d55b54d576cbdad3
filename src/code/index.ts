/** @module Code tools: the model's JavaScript in a fresh Dynamic Worker isolate per call (`roost-edge/code`). */

export type { CodeCapabilities } from "./capabilities";
export { type CodeToolConfig, codeTool } from "./code-tool";
export {
  type CodeLimits,
  DEFAULT_CODE_LIMITS,
  resolveCodeLimits
} from "./limits";
export type { CodeAnswer } from "./reply";
