/**
 * @module What a session object remembers of its committed rows between
 * mutations: the transcript's message count and the state values a step
 * read or wrote, so the next step does not read them from SQLite again.
 * Only committed values enter it: the backends fill it on a read and on
 * the flush inside a commit's transaction, and the commit clears it when
 * that transaction rolls back (commit.ts), as deleting the session does.
 */

/** A state value kept at most this long (as JSON text); a longer one is read each time. */
const MAX_VALUE_CHARS = 16 * 1024;
/** State keys kept at once; past it the cache starts again. */
const MAX_KEYS = 1_000;

export class CommittedCache {
  readonly #counts = new Map<number, number>();
  /** The episode the state values are of: a reset starts them again. */
  #episode = -1;
  /** JSON text per key; null: known to be absent. */
  readonly #state = new Map<string, string | null>();

  transcriptCount(episode: number): number | undefined {
    return this.#counts.get(episode);
  }

  setTranscriptCount(episode: number, count: number): void {
    if (!this.#counts.has(episode) && this.#counts.size > 0)
      this.#counts.clear();
    this.#counts.set(episode, count);
  }

  /** A state key's committed JSON text, null when absent, undefined when not known. */
  stateText(episode: number, key: string): string | null | undefined {
    return episode === this.#episode ? this.#state.get(key) : undefined;
  }

  setStateText(episode: number, key: string, text: string | null): void {
    if (episode !== this.#episode) {
      this.#state.clear();
      this.#episode = episode;
    }
    if (text !== null && text.length > MAX_VALUE_CHARS) {
      this.#state.delete(key);
      return;
    }
    if (this.#state.size >= MAX_KEYS && !this.#state.has(key))
      this.#state.clear();
    this.#state.set(key, text);
  }

  clear(): void {
    this.#counts.clear();
    this.#state.clear();
    this.#episode = -1;
  }
}
