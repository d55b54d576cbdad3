/**
 * @module The baseline: a bare SQLite Durable Object doing the least a step
 * must do — one fetch round trip that appends one JSON row — plus the
 * whole-state-in-one-row design other SDKs use, grown until SQLite refuses.
 */

import { DurableObject } from "cloudflare:workers";
import { noRows, type RowCount } from "../../src/storage/row-meter";
import { benchObject } from "../lib/objects";
import { answerFrame, type FrameAnswer } from "./openenv-frames";

/** Objects added to the one-row state per write while it grows. */
const GROWTH = 100;

/** Pads a broadcast frame to about the size of a step's event frames. */
const PAD = "x".repeat(70);

export class Baseline extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"
    );
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS whole_state (id INTEGER PRIMARY KEY, json TEXT NOT NULL)"
    );
  }

  /** Appends one JSON row and answers its id (called over RPC, as Roost's routes call sessions). */
  append(json: string): { id: number } {
    return this.#insert(json);
  }

  /** `append`, answering the rows its statement read and wrote (the bill scenario). */
  billedAppend(json: string): { id: number; rows: RowCount } {
    const cursor = this.ctx.storage.sql.exec<{ id: number }>(
      "INSERT INTO log (body) VALUES (?) RETURNING id",
      json
    );
    const { id } = cursor.one();
    return {
      id,
      rows: {
        ...noRows(),
        rowsRead: cursor.rowsRead,
        rowsWritten: cursor.rowsWritten,
        statements: 1
      }
    };
  }

  /**
   * Does nothing: a socket accepted in the worker calls it at connect, so
   * the object exists by then, as a Roost session does at OpenEnv's connect.
   */
  open(): void {}

  /** One OpenEnv frame of a socket the worker holds (the openenv scenario). */
  openEnvFrame(text: string): Promise<FrameAnswer> {
    return answerFrame(this.ctx.storage, text);
  }

  /** One OpenEnv frame of a socket this object holds (the openenv scenario; the fan-out's sockets send none). */
  override async webSocketMessage(
    ws: WebSocket,
    message: string | ArrayBuffer
  ): Promise<void> {
    const text =
      typeof message === "string" ? message : new TextDecoder().decode(message);
    const answer = await answerFrame(this.ctx.storage, text);
    if (answer.reply !== undefined) ws.send(answer.reply);
    if (answer.close) ws.close(1000, "closed");
  }

  /** The same over the object's fetch handler, for comparison; or a socket upgrade. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade")?.toLowerCase() === "websocket") {
      const pair = new WebSocketPair();
      this.ctx.acceptWebSocket(pair[1]);
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    return Response.json(this.#insert(await request.text()));
  }

  /**
   * Appends one row, then sends `frames` small frames to every socket, the
   * last of type `step`: what a step's stream needs, and nothing more.
   */
  broadcast(json: string, frames: number): { id: number } {
    const row = this.#insert(json);
    const sockets = this.ctx.getWebSockets();
    for (let i = 0; i < frames; i++) {
      const text = JSON.stringify({
        seq: row.id * frames + i,
        type: i === frames - 1 ? "step" : "event",
        episode: 1,
        at: new Date().toISOString(),
        pad: PAD
      });
      for (const ws of sockets) ws.send(text);
    }
    return row;
  }

  #insert(json: string): { id: number } {
    return this.ctx.storage.sql
      .exec<{ id: number }>(
        "INSERT INTO log (body) VALUES (?) RETURNING id",
        json
      )
      .one();
  }

  /**
   * Keeps the whole state as one JSON row and rewrites it after every
   * change, as a whole-state design does, until SQLite refuses the row.
   */
  growWholeState(): {
    lastOkBytes: number;
    failedAtBytes: number | null;
    error: string | null;
  } {
    const items: unknown[] = [];
    let lastOkBytes = 0;
    for (;;) {
      for (let i = 0; i < GROWTH; i++) items.push(benchObject(items.length));
      const json = JSON.stringify({ items });
      try {
        this.ctx.storage.sql.exec(
          "INSERT OR REPLACE INTO whole_state (id, json) VALUES (1, ?)",
          json
        );
      } catch (error) {
        return {
          lastOkBytes,
          failedAtBytes: json.length,
          error: String(error)
        };
      }
      lastOkBytes = json.length;
      // Far past any row limit: report that none was hit.
      if (json.length > 64 * 1024 * 1024) {
        return { lastOkBytes, failedAtBytes: null, error: null };
      }
    }
  }

  /** Drops this instance, so the next request reloads it cold. */
  abortNow(): void {
    this.ctx.abort("bench");
  }
}
