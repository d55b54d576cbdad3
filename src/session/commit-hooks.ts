/**
 * @module How a layer hooks into a session's commits without the commit
 * knowing it: a capture writes in the commit's own transaction, an
 * observer learns of a durable commit after it, outside the queue.
 */

import type { Environment } from "../environment/define-environment";
import type { stagedParts } from "../storage/episode-parts";
import type { RescoreStep } from "../storage/rescore-rows";
import type { SessionRow } from "../storage/session-row";
import type { MutationKind } from "./commit";

/**
 * What a capture sees of a mutation about to commit: a layer records what
 * it needs of it (re-scoring keeps each step's place) in the same
 * transaction, so it is durable exactly when the mutation is.
 */
export interface CommitCapture {
  kind: MutationKind;
  environment: Environment;
  /** The session row as the mutation commits it. */
  row: SessionRow;
  /** The first seq of the mutation's events. */
  firstSeq: number;
  /** The hidden store's changes, read on demand (before the flush). */
  hiddenChanges(): ReturnType<ReturnType<typeof stagedParts>["hiddenChanges"]>;
  /** The step's place, when the mutation recorded one. */
  step: RescoreStep | undefined;
}

/**
 * Called before the transaction with each mutation about to commit; the
 * write it answers, if any, runs inside the transaction.
 */
export type Capture = (c: CommitCapture) => (() => void) | undefined;

/** What an observer learns of a durable commit. */
export interface CommitOutcome {
  kind: MutationKind;
  environment: Environment;
  /** The session row before the mutation, and as it committed it. */
  before: SessionRow;
  row: SessionRow;
}

/**
 * Called once a commit is durable, outside the session's queue: what it
 * answers is awaited before the mutation's caller gets its answer (so a
 * client that acts on the answer sees the observer's work), never by the
 * mutations queued behind it. It bounds its own wait and never throws.
 */
export type CommitObserver = (c: CommitOutcome) => Promise<void> | undefined;
