/**
 * @module A decision-tree run's events as the AI SDK's UI message stream
 * (the chunks `useChat` reads): one assistant message per run, one step per
 * pass, decisions and Results as data parts, tools as server-run dynamic
 * tool parts. Pure: fed the run's events in seq order, from the log or
 * live, it gives the same chunks, so a replay rebuilds the same message.
 */

/** One chunk of the UI message stream: `{ type, ...fields }` as the AI SDK validates it. */
export type UiChunk = { type: string } & Record<string, unknown>;

/** An event as the log stores it (`StoredEvent`): seq and type, then its fields. */
export interface RunEvent {
  seq: number;
  type: string;
  [field: string]: unknown;
}

/** Headers of a UI message stream response (SSE, and the protocol's version header). */
export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no"
};

/** One chunk as an SSE event. */
export const sseData = (chunk: UiChunk): string =>
  `data: ${JSON.stringify(chunk)}\n\n`;

/** The SSE event that ends every UI message stream. */
export const SSE_DONE = "data: [DONE]\n\n";

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const str = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** Server-run tools: the client neither runs them nor waits on them. */
const TOOL = { dynamic: true, providerExecuted: true } as const;

/** What a reset-step rolls back: the translator's view at the step's start. */
interface Memory {
  tools: Map<string, boolean>;
  parts: Map<string, Obj[]>;
  lastText: string;
}

const copy = (m: Memory): Memory => ({
  tools: new Map(m.tools),
  parts: new Map([...m.parts].map(([k, v]) => [k, [...v]])),
  lastText: m.lastText
});

/**
 * Translates one run's events. Events of other runs, of other callers'
 * tool calls, and of types it does not know give no chunks; so does any
 * event at or below a seq it already took, so a replay that overlaps live
 * delivery duplicates nothing.
 *
 * @example
 * const t = new RunChunks(runId);
 * let sse = t.start().map(sseData).join("");
 * for (const event of events) sse += t.push(event).map(sseData).join("");
 * if (t.done) sse += SSE_DONE;
 */
export class RunChunks {
  readonly runId: string;
  #lastSeq = 0;
  /** The seq of the newest event that belonged to the run. */
  #lastRunSeq = 0;
  #pass: number | undefined;
  /** The node the run is at, as the last decision left it. */
  #node: unknown;
  #stepOpen = false;
  #done = false;
  /** Tool calls seen, by call id: whether their input was sent. */
  #memory: Memory = { tools: new Map(), parts: new Map(), lastText: "" };
  #atStep: Memory = copy(this.#memory);

  constructor(runId: string) {
    this.runId = runId;
  }

  /** Whether the run's end was translated; nothing follows it. */
  get done(): boolean {
    return this.#done;
  }

  /** The newest seq taken. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The stream's first chunk: the message's id is the run's, so a replay replaces it. */
  start(): UiChunk[] {
    return [
      {
        type: "start",
        messageId: this.runId,
        messageMetadata: { run_id: this.runId }
      }
    ];
  }

  push(event: RunEvent): UiChunk[] {
    if (this.#done || event.seq <= this.#lastSeq) return [];
    this.#lastSeq = event.seq;
    const chunks = this.#translate(event);
    if (chunks.length > 0) this.#lastRunSeq = event.seq;
    return chunks;
  }

  /**
   * Ends a stream whose run ended without its `tree.completed` in view
   * (trimmed from the log): the end as the run's status tells it.
   */
  end(state: string, error?: { message: string }): UiChunk[] {
    if (this.#done) return [];
    return this.#complete(this.#lastSeq, {
      state,
      ...(error ? { error } : {})
    });
  }

  #translate(event: RunEvent): UiChunk[] {
    switch (event.type) {
      case "tree.decision":
        return event.run_id === this.runId ? this.#decision(event) : [];
      case "tree.completed":
        return event.run_id === this.runId && isObj(event.payload)
          ? this.#complete(event.seq, event.payload)
          : [];
      case "update":
        return this.#update(event);
      case "tool.started":
        return this.#ours(event.call_id)
          ? this.#toolStarted(event, event.call_id)
          : [];
      case "message":
        return this.#toolMessage(event);
      case "result":
        return this.#ours(event.call_id)
          ? this.#result(event, event.call_id)
          : [];
      case "step.aborted":
        return this.#aborted(event);
      default:
        return [];
    }
  }

  /** A call of this run: the loop names its calls `<run id>_<pass>_…`. */
  #ours(callId: unknown): callId is string {
    return typeof callId === "string" && callId.startsWith(`${this.runId}_`);
  }

  #passOf(callId: string): number | undefined {
    const pass = Number(callId.slice(this.runId.length + 1).split("_")[0]);
    return Number.isSafeInteger(pass) ? pass : undefined;
  }

  /** A new pass closes the step before it and opens its own. */
  #step(pass: number | undefined): UiChunk[] {
    if (this.#stepOpen && (pass === undefined || pass === this.#pass))
      return [];
    const chunks: UiChunk[] = this.#stepOpen ? [{ type: "finish-step" }] : [];
    chunks.push({ type: "start-step" });
    this.#stepOpen = true;
    if (pass !== undefined) this.#pass = pass;
    this.#atStep = copy(this.#memory);
    return chunks;
  }

  #text(id: string, text: string): UiChunk[] {
    this.#memory.lastText = text;
    return [
      { type: "text-start", id },
      { type: "text-delta", id, delta: text },
      { type: "text-end", id }
    ];
  }

  #decision(event: RunEvent): UiChunk[] {
    const p = isObj(event.payload) ? event.payload : {};
    const pass = typeof p.pass === "number" ? p.pass : undefined;
    const chunks = this.#step(pass);
    const reasoning = str(p.reasoning);
    if (reasoning) {
      const id = `reasoning-${event.seq}`;
      chunks.push(
        { type: "reasoning-start", id },
        { type: "reasoning-delta", id, delta: reasoning },
        { type: "reasoning-end", id }
      );
    }
    // A branch moves the run to the node it names.
    this.#node = p.kind === "branch" ? p.option : p.node;
    chunks.push(
      { type: "data-decision", id: `decision-${event.seq}`, data: p },
      this.#tree("running", { pass: pass ?? null })
    );
    return chunks;
  }

  #update(event: RunEvent): UiChunk[] {
    const callId = event.call_id;
    // The loop's own updates carry no call id; a tool's carry its call's.
    if (callId !== undefined && !this.#ours(callId)) return [];
    if (this.#pass === undefined && callId === undefined) return [];
    const chunks = this.#step(
      typeof callId === "string" ? this.#passOf(callId) : undefined
    );
    const payload = isObj(event.payload) ? event.payload : {};
    const text = str(payload.text);
    if (event.kind === "text" && text !== undefined && text !== "") {
      return [...chunks, ...this.#text(`text-${event.seq}`, text)];
    }
    // Progress worth showing while it happens, not worth keeping.
    chunks.push({
      type: "data-update",
      data: {
        kind: event.kind,
        ...payload,
        ...(typeof callId === "string" ? { call_id: callId } : {})
      },
      transient: true
    });
    return chunks;
  }

  #toolInput(callId: string, tool: string, input: unknown): UiChunk[] {
    this.#memory.tools.set(callId, true);
    return [
      { type: "tool-input-start", toolCallId: callId, toolName: tool, ...TOOL },
      {
        type: "tool-input-available",
        toolCallId: callId,
        toolName: tool,
        input,
        ...TOOL
      }
    ];
  }

  #toolStarted(event: RunEvent, callId: string): UiChunk[] {
    return [
      ...this.#step(this.#passOf(callId)),
      ...this.#toolInput(callId, String(event.tool), event.arguments)
    ];
  }

  /** A tool's answer arrives as the transcript's tool message. */
  #toolMessage(event: RunEvent): UiChunk[] {
    const message = isObj(event.message) ? event.message : {};
    const callId = message.tool_call_id;
    if (message.role !== "tool" || !this.#ours(callId)) return [];
    const chunks = this.#step(this.#passOf(callId));
    if (!this.#memory.tools.has(callId)) {
      chunks.push(...this.#toolInput(callId, String(message.name ?? ""), {}));
    }
    const content = message.content;
    if (message.is_error === true) {
      chunks.push({
        type: "tool-output-error",
        toolCallId: callId,
        errorText:
          typeof content === "string" ? content : JSON.stringify(content),
        ...TOOL
      });
    } else {
      chunks.push({
        type: "tool-output-available",
        toolCallId: callId,
        output: content,
        ...TOOL
      });
    }
    return chunks;
  }

  /** A Result, whole: the parts of a split one are joined first. */
  #result(event: RunEvent, callId: string): UiChunk[] {
    const { seq, type, at, episode, part, objects, ...fields } = event;
    const key = `${String(event.tool)}/${String(event.name)}/${String(event.index)}`;
    let all = Array.isArray(objects) ? (objects as Obj[]) : [];
    if (isObj(part)) {
      const sofar = [...(this.#memory.parts.get(key) ?? []), ...all];
      if (Number(part.index) < Number(part.count) - 1) {
        this.#memory.parts.set(key, sofar);
        return this.#step(this.#passOf(callId));
      }
      this.#memory.parts.delete(key);
      all = sofar;
    }
    return [
      ...this.#step(this.#passOf(callId)),
      {
        type: "data-result",
        id: `result-${key}`,
        data: { ...fields, objects: all }
      }
    ];
  }

  /**
   * A pass that died before it committed did not happen: its parts go
   * (`reset-step`), and its retry fills the same step again.
   */
  #aborted(event: RunEvent): UiChunk[] {
    const first = typeof event.first_seq === "number" ? event.first_seq : 0;
    if (!this.#stepOpen || this.#lastRunSeq < first) return [];
    this.#memory = copy(this.#atStep);
    return [{ type: "reset-step" }];
  }

  /** One part, replaced in place: where the run is and how it stands. */
  #tree(state: string, extra: Obj): UiChunk {
    return {
      type: "data-tree",
      id: "tree",
      data: {
        run_id: this.runId,
        state,
        ...(this.#node === undefined ? {} : { node: this.#node }),
        ...extra
      }
    };
  }

  #complete(seq: number, payload: Obj): UiChunk[] {
    this.#done = true;
    const state = str(payload.state) ?? "completed";
    const chunks: UiChunk[] = [];
    const text = str(payload.text);
    if (state === "completed" && text && text !== this.#memory.lastText) {
      chunks.push(...this.#step(undefined), ...this.#text(`text-${seq}`, text));
    }
    if (this.#stepOpen) chunks.push({ type: "finish-step" });
    this.#stepOpen = false;
    const outcome = str(payload.outcome);
    const metadata: Obj = {
      run_id: this.runId,
      state,
      ...(outcome ? { outcome } : {}),
      ...(typeof payload.passes === "number" ? { passes: payload.passes } : {})
    };
    chunks.push(this.#tree(state, outcome ? { outcome } : {}));
    if (state === "failed") {
      const error = isObj(payload.error) ? payload.error : {};
      chunks.push({
        type: "error",
        errorText: str(error.message) ?? "The run failed."
      });
    }
    chunks.push({
      type: "finish",
      finishReason:
        state === "completed" ? "stop" : state === "failed" ? "error" : "other",
      messageMetadata: metadata
    });
    return chunks;
  }
}
