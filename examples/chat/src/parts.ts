/**
 * @module The chat endpoint's data parts, read off useChat's messages: the
 * Results a run produced, its decisions and where the run is in the tree
 * (the `data-tree` part, replaced in place as the run moves).
 */
import type { UIMessage } from "ai";

/** A `data-result` part's data: one Result of a tool, whole. */
export interface ResultData {
  tool: string;
  name: string;
  index: number;
  objects: Record<string, unknown>[];
  payload_type?: string;
  mapping?: Record<string, string>;
  metadata?: Record<string, unknown>;
}

/** A `data-decision` part's data. */
export interface DecisionData {
  pass?: number;
  node: string;
  option: string;
  kind: string;
}

/** The `data-tree` part's data. */
export interface TreeData {
  run_id: string;
  state: string;
  node?: string;
  pass?: number | null;
  outcome?: string;
}

export type Part = UIMessage["parts"][number];

const dataOf = <T>(part: Part, type: string): T | undefined =>
  part.type === type ? ((part as { data: unknown }).data as T) : undefined;

/** The DOM id of a Result's card, from its message and part ids. */
export const resultDomId = (messageId: string, partId: string): string =>
  `result-${messageId}-${partId}`.replace(/[^\w-]/g, "_");

/** One Result as the results panel lists it. */
export interface ResultEntry {
  key: string;
  domId: string;
  runId: string;
  data: ResultData;
}

/** Every Result of every run shown, in the order they arrived. */
export const resultsOf = (messages: readonly UIMessage[]): ResultEntry[] =>
  messages.flatMap((m) =>
    m.role !== "assistant"
      ? []
      : m.parts.flatMap((part, i) => {
          const data = dataOf<ResultData>(part, "data-result");
          if (!data) return [];
          const id = (part as { id?: string }).id ?? String(i);
          return [
            {
              key: `${m.id}/${id}`,
              domId: resultDomId(m.id, id),
              runId: m.id,
              data
            }
          ];
        })
  );

/** Where the newest run is: its tree part, and its decisions in order. */
export interface RunPosition {
  tree: TreeData | undefined;
  decisions: DecisionData[];
  /** The seq of the newest decision (its part id is `decision-<seq>`). */
  lastSeq: number;
}

export const positionOf = (messages: readonly UIMessage[]): RunPosition => {
  const last = messages.findLast((m) => m.role === "assistant");
  let tree: TreeData | undefined;
  const decisions: DecisionData[] = [];
  let lastSeq = 0;
  for (const part of last?.parts ?? []) {
    tree = dataOf<TreeData>(part, "data-tree") ?? tree;
    const decision = dataOf<DecisionData>(part, "data-decision");
    if (decision) {
      decisions.push(decision);
      const seq = Number((part as { id?: string }).id?.split("-")[1]);
      if (Number.isSafeInteger(seq)) lastSeq = Math.max(lastSeq, seq);
    }
  }
  return { tree, decisions, lastSeq };
};
