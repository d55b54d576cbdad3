/** @module Typed state and transcript backends on the session's SQLite: one row per state key, one per run of messages, under the folds of the log. */

import { type JsonValue, utf8Length } from "../json";
import type { Message } from "../messages/schema";
import type { ReadBudget } from "../protocol/read-budget";
import type { StateBackend, TranscriptBackend } from "../state/types";
import type { CommittedCache } from "./committed-cache";
import { EpisodeRows } from "./episode-rows";
import { RUN_SEPARATOR, textRuns, toRowText } from "./row-text";
import type { Fold } from "./session-row";
import {
  type FoldedMessages,
  readFoldedState,
  readFolds,
  type StateFolds
} from "./state-folds";
import { rowsIfPresent } from "./tables";

/**
 * State values as JSON text, one row per key of the episode, under the
 * values folded into the event log since that table was written
 * (state-folds.ts): a key reads as its newest fold, else its row. Keys
 * come back in the order they were first set (rowid order, then the
 * folds'), as a Map would give them. Given a session object's cache, a
 * value read or written once is read from there until the episode ends
 * (committed-cache.ts). A commit's backend holds its writes (`hold`) for
 * the commit to fold or write (`held`). Any other writes its rows at
 * once: one given folds is for reads (a newer fold hides a row), the rest
 * (a fork's scratch episode, tests) have none.
 *
 * @example
 * const state = new SqliteStateBackend(ctx.storage.sql, episode);
 */
export class SqliteStateBackend implements StateBackend {
  readonly #sql: SqlStorage;
  readonly #rows: EpisodeRows;
  readonly #episode: number;
  readonly #cache: CommittedCache | undefined;
  readonly #folds: StateFolds | undefined;
  /** The folds' values, read once, on the first key the cache lacks. */
  #folded: Map<string, string> | undefined;
  readonly #held: Map<string, string> | undefined;

  constructor(
    sql: SqlStorage,
    episode: number,
    cache?: CommittedCache,
    options: { folds?: StateFolds; hold?: boolean } = {}
  ) {
    this.#sql = sql;
    this.#rows = new EpisodeRows(sql, "state", episode);
    this.#episode = episode;
    this.#cache = cache;
    // A reset's backend is of the next episode: the folds are of the last.
    const folds = options.folds;
    if (folds !== undefined && folds.episode === episode && folds.count > 0)
      this.#folds = folds;
    this.#held = options.hold === true ? new Map() : undefined;
  }

  /** What `set` held, key → JSON text, in the order first set. */
  get held(): ReadonlyMap<string, string> {
    return this.#held ?? new Map();
  }

  #foldedValues(): Map<string, string> {
    this.#folded ??=
      this.#folds === undefined
        ? new Map()
        : readFoldedState(this.#sql, this.#folds);
    return this.#folded;
  }

  /** The key's JSON text: held, else committed (from the cache when it knows it). */
  #text(key: string): string | null {
    const held = this.#held?.get(key);
    if (held !== undefined) return held;
    const known = this.#cache?.stateText(this.#episode, key);
    if (known !== undefined) return known;
    const text = this.#foldedValues().get(key) ?? this.#rows.text(key) ?? null;
    this.#cache?.setStateText(this.#episode, key, text);
    return text;
  }

  get(key: string): JsonValue | undefined {
    const text = this.#text(key);
    return text === null ? undefined : (JSON.parse(text) as JsonValue);
  }

  set(key: string, value: JsonValue): void {
    const text = toRowText(value, `State key ${JSON.stringify(key)}`, key);
    if (this.#held === undefined) this.#rows.put(key, text);
    else this.#held.set(key, text);
    this.#cache?.setStateText(this.#episode, key, text);
  }

  has(key: string): boolean {
    return this.#text(key) !== null;
  }

  keys(): string[] {
    const listed = this.#rows.keys();
    const known = new Set(listed);
    for (const more of [this.#foldedValues(), this.held])
      for (const key of more.keys())
        if (!known.has(key)) {
          known.add(key);
          listed.push(key);
        }
    return listed;
  }
}

/** The messages the folds carry, oldest first. */
const messagesOf = (folds: readonly Fold[]): FoldedMessages[] =>
  folds.flatMap((f) => (f.messages === undefined ? [] : [f.messages]));

/** The rowids of one episode's runs: `episode * EPISODE_SPAN + first index`, computed in SQL (64-bit). */
const IN_EPISODE = "id >= ?1 * 4294967296 AND id < (?1 + 1) * 4294967296";

/**
 * The transcript: a row holds a run of messages (those one `append` got),
 * keyed by its episode and its first message's index in one rowid, so an
 * append writes one row and no index entry. Indexes are dense from 0; the
 * table's count is its last run's last index + 1 (one probe from the
 * end), and a page starts at the run that holds its first message, never
 * an OFFSET walk. Given the folds since the session's checkpoint
 * (state-folds.ts), the messages after the table's come from them. An
 * instance lives for one mutation or read and is the only writer
 * meanwhile, so it probes the count once and keeps it; given a session
 * object's cache, it reads the count there and keeps it there, so the
 * next step does not probe it at all (committed-cache.ts). A commit's
 * backend holds its messages (`hold`) for the commit to fold or write.
 *
 * @example
 * const transcript = new SqliteTranscriptBackend(ctx.storage.sql, episode);
 * transcript.list(transcript.count() - 20, 20); // the last twenty messages
 */
export class SqliteTranscriptBackend implements TranscriptBackend {
  readonly #sql: SqlStorage;
  readonly #episode: number;
  #count: number | undefined;
  readonly #cache: CommittedCache | undefined;
  readonly #folds: StateFolds | undefined;
  /** The folds' messages, read once, when a read or a write needs them. */
  #folded: FoldedMessages[] | undefined;
  #held: FoldedMessages | undefined;
  readonly #hold: boolean;

  constructor(
    sql: SqlStorage,
    episode: number,
    cache?: CommittedCache,
    options: {
      folds?: StateFolds;
      /** The folds, when the caller read them already (state-folds.ts `writeFolded`). */
      read?: readonly Fold[];
      hold?: boolean;
    } = {}
  ) {
    this.#sql = sql;
    this.#episode = episode;
    this.#cache = cache;
    this.#count = cache?.transcriptCount(episode);
    const folds = options.folds;
    if (folds !== undefined && folds.episode === episode && folds.count > 0) {
      this.#folds = folds;
      if (options.read !== undefined) this.#folded = messagesOf(options.read);
    }
    this.#hold = options.hold === true;
  }

  /** What `append` held: the commit's messages, to fold or to write (`writeFolded`). */
  get held(): FoldedMessages | undefined {
    return this.#held;
  }

  #foldedRuns(): FoldedMessages[] {
    this.#folded ??=
      this.#folds === undefined
        ? []
        : messagesOf(readFolds(this.#sql, this.#folds));
    return this.#folded;
  }

  /** Messages the table holds: one probe of its last run. */
  #tableCount(): number {
    for (const { last } of rowsIfPresent<{ last: number }>(
      this.#sql,
      "transcript_runs",
      `SELECT last FROM transcript_runs WHERE ${IN_EPISODE} ORDER BY id DESC LIMIT 1`,
      this.#episode
    ))
      return last + 1;
    return 0;
  }

  #insert(first: number, texts: readonly string[]): void {
    for (const run of textRuns(texts)) {
      this.#sql.exec(
        `INSERT INTO transcript_runs (id, episode, last, body)
         VALUES (?1 * 4294967296 + ?2, ?1, ?3, ?4)`,
        this.#episode,
        first + run.from,
        first + run.from + run.texts.length - 1,
        run.texts.join(RUN_SEPARATOR)
      );
    }
  }

  append(messages: Message[]): void {
    // Every message is checked before the first row goes in.
    const texts = messages.map((m, i) => toRowText(m, `messages[${i}]`));
    const first = this.count();
    if (this.#hold) {
      this.#held ??= { from: first, texts: [] };
      this.#held.texts.push(...texts);
    } else {
      this.writeFolded();
      this.#insert(first, texts);
    }
    this.#count = first + texts.length;
    this.#cache?.setTranscriptCount(this.#episode, this.#count);
  }

  /**
   * Writes into the table the folded messages it lacks, then the held
   * ones, so the table holds every message. Synchronous: inside the
   * commit's transaction.
   */
  writeFolded(): void {
    const runs = this.#foldedRuns();
    const held = this.#held;
    this.#held = undefined;
    if (runs.length === 0 && held === undefined) return;
    // As few rows as fit: the folds of 32 steps are one run, not 32.
    const first = this.#tableCount();
    const texts: string[] = [];
    for (const run of held === undefined ? runs : [...runs, held])
      for (
        let i = Math.max(0, first + texts.length - run.from);
        i < run.texts.length;
        i++
      )
        texts.push(run.texts[i]!);
    if (texts.length > 0) this.#insert(first, texts);
  }

  count(): number {
    if (this.#count === undefined) {
      const last = this.#foldedRuns().at(-1);
      this.#count = Math.max(
        this.#tableCount(),
        last === undefined ? 0 : last.from + last.texts.length
      );
    }
    this.#cache?.setTranscriptCount(this.#episode, this.#count);
    return this.#count;
  }

  /**
   * The messages from `offset` on, as JSON texts, read one row at a time:
   * the table's, then those of the folds it lacks, then the held ones.
   */
  *#texts(offset: number): Generator<string> {
    let next = Math.max(0, Math.floor(offset));
    const rows = rowsIfPresent<{ first: number; body: string }>(
      this.#sql,
      "transcript_runs",
      `SELECT id - ?1 * 4294967296 AS first, body FROM transcript_runs
       WHERE id >= (SELECT coalesce(max(id), ?1 * 4294967296) FROM transcript_runs
           WHERE ${IN_EPISODE} AND id <= ?1 * 4294967296 + ?2)
         AND id < (?1 + 1) * 4294967296
       ORDER BY id`,
      this.#episode,
      next
    );
    for (const { first, body } of rows) {
      const texts = body.split(RUN_SEPARATOR);
      for (let i = Math.max(0, next - first); i < texts.length; i++) {
        next = first + i + 1;
        yield texts[i]!;
      }
    }
    const held = this.#held;
    for (const run of held === undefined
      ? this.#foldedRuns()
      : [...this.#foldedRuns(), held])
      for (let i = Math.max(0, next - run.from); i < run.texts.length; i++) {
        next = run.from + i + 1;
        yield run.texts[i]!;
      }
  }

  /**
   * Up to `limit` messages from `offset` while `budget` admits them, read
   * one row at a time so a page that stops has read only what it returns.
   */
  page(offset: number, limit: number, budget: ReadBudget): Message[] {
    const out: Message[] = [];
    if (!(limit > 0)) return out;
    for (const text of this.#texts(offset)) {
      if (out.length >= limit || !budget.take(utf8Length(text) + 1)) break;
      out.push(JSON.parse(text) as Message);
    }
    return out;
  }

  list(offset: number, limit: number): Message[] {
    const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : -1;
    const out: Message[] = [];
    if (count === 0) return out;
    for (const text of this.#texts(offset)) {
      if (out.length === count) break;
      out.push(JSON.parse(text) as Message);
    }
    return out;
  }
}
