/** @module `roost-edge/react`: `useSession`, a session's live view as a React hook. */

export type { Scope, SessionAction } from "../protocol";
export type {
  SessionState,
  ToolArgs,
  ToolName
} from "./environment-types";
export { SessionStore, type StoreOptions } from "./session-store";
export type { SessionView } from "./session-view";
export {
  type SessionHandle,
  type UseSessionOptions,
  useSession
} from "./use-session";
