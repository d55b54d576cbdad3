/**
 * @module A chat run's UI message stream, served by the session object:
 * the run's events replayed from the log from its first seq, then live as
 * they are written, through one translator (protocol/ui-chunks.ts). The
 * log is the only source, so the POST's stream, a reconnect's replay and
 * a reconnect after the object was evicted all say the same thing.
 */

import { RoostError, toErrorBody } from "../../errors";
import {
  ReadBudget,
  RunChunks,
  type RunEvent,
  SSE_DONE,
  sseData,
  UI_STREAM_HEADERS,
  type UiChunk
} from "../../protocol";
import type { SessionRuntime } from "../../session/runtime";
import type { StoredEvent } from "../../storage/event-log";
import { activeChatRun, type RunRow, readRun } from "../../storage/run-rows";

/** Replays are read in pages, so a long run never loads its whole log at once. */
const REPLAY_PAGE = 500;

/**
 * An SSE comment this often while a pass is quiet (a slow model), so
 * proxies between the client and the worker keep the connection; the same
 * tick ends the stream of a session deleted meanwhile.
 */
const KEEP_ALIVE_MS = 15_000;

/** The object's internal path the worker asks for a chat stream on. */
export const CHAT_STREAM_PATH = "/chat/stream";

const encoder = new TextEncoder();

const isActive = (run: RunRow) =>
  run.state === "queued" || run.state === "running";

/** The run's stream: replay, then live, then `[DONE]` once the run ended. */
const runStream = (
  runtime: SessionRuntime,
  run: RunRow
): ReadableStream<Uint8Array> => {
  const t = new RunChunks(run.runId);
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const send = (chunks: UiChunk[]) => {
        for (const chunk of chunks) write(sseData(chunk));
      };
      const timer = setInterval(() => {
        // A deleted (or expired) session writes no more events: say so.
        if (!runtime.exists()) {
          send([{ type: "error", errorText: "The session was deleted." }]);
          return end();
        }
        write(": keep-alive\n\n");
      }, KEEP_ALIVE_MS);
      stop = () => {
        open = false;
        clearInterval(timer);
        unsubscribe();
      };
      let unsubscribe = () => {};
      const end = () => {
        write(SSE_DONE);
        stop();
        controller.close();
      };
      send(t.start());
      const log = runtime.shared.events;
      const first = run.firstSeq ?? 1;
      const oldest = log.oldestSeq;
      if (oldest > first) {
        send([
          {
            type: "error",
            errorText:
              "The start of this run was trimmed from the session's event log; read the run with GET …/runs/:run_id."
          }
        ]);
        return end();
      }
      // Replay and subscription happen in one turn: no event falls between.
      // Pages of at most the read budget: the log is never all in memory.
      for (let cursor = first - 1; !t.done; ) {
        const page = log.page(cursor, REPLAY_PAGE, new ReadBudget());
        for (const { text } of page) {
          send(t.push(JSON.parse(text) as StoredEvent & RunEvent));
        }
        if (page.length === 0) break;
        cursor = page.at(-1)!.seq;
      }
      if (!t.done) {
        const latest = readRun(runtime.shared.sql, run.runId);
        if (latest !== undefined && !isActive(latest)) {
          send(t.end(latest.state, latest.error));
        }
      }
      if (t.done) return end();
      unsubscribe = runtime.subscribe((event) => {
        send(t.push(JSON.parse(event.text) as RunEvent));
        if (t.done) end();
      });
    },
    cancel() {
      // The reader went (a reload, a stop): the run goes on without it.
      stop();
    }
  });
};

const errorResponse = (error: unknown): Response => {
  if (!(error instanceof RoostError)) throw error;
  return Response.json({ error: toErrorBody(error) }, { status: error.status });
};

/**
 * Answers the worker's request for a stream: `?run=` the stream of that
 * run (the POST that started it), `?chat=` that of the chat's run still
 * going, or 204 when none is (what a reconnecting `useChat` expects).
 */
export const serveChatStream = (
  runtime: SessionRuntime,
  url: URL
): Response => {
  try {
    const shared = runtime.shared;
    shared.seen(shared.requireRow());
    const runId = url.searchParams.get("run");
    const chatId = url.searchParams.get("chat");
    let run: RunRow | undefined;
    if (runId !== null) {
      run = readRun(shared.sql, runId);
      if (run === undefined)
        throw new RoostError("not_found", `No run "${runId}" in this session.`);
    } else if (chatId !== null) {
      run = activeChatRun(shared.sql, chatId);
      if (run === undefined) return new Response(null, { status: 204 });
    } else {
      throw new RoostError("invalid_request", "Name a run or a chat.");
    }
    return new Response(runStream(runtime, run), {
      headers: UI_STREAM_HEADERS
    });
  } catch (error) {
    return errorResponse(error);
  }
};
