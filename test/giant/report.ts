/** @module The giant test's summary: what each read took and the largest answer each route gave. */

import type { Tally } from "./tally";
import type { RouteStats } from "./wire";

const mib = (bytes: number): string =>
  `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

export class Report {
  readonly #reads: string[] = [];

  /** Times `run` and notes its tally under `name`. */
  async time<T extends { tally: Tally } | Tally>(
    name: string,
    run: () => Promise<T>
  ): Promise<T> {
    const started = performance.now();
    const out = await run();
    const s = ((performance.now() - started) / 1000).toFixed(1);
    const tally: Tally = "tally" in out ? out.tally : out;
    this.#reads.push(
      `${name}: ${tally.pages} pages, ${mib(tally.bytes)}, largest ${mib(tally.largest)}, ${tally.truncated} cut by bytes, ${s} s`
    );
    return out;
  }

  note(line: string): void {
    this.#reads.push(line);
  }

  render(routes: readonly RouteStats[]): string {
    return [
      "giant session reads:",
      ...this.#reads.map((line) => `  ${line}`),
      "largest answer per route:",
      ...[...routes]
        .sort((a, b) => b.largest - a.largest)
        .map(
          (r) =>
            `  ${r.route}: ${r.requests} requests, largest ${r.largest} B = ${mib(r.largest)} (${r.largestPath})`
        )
    ].join("\n");
  }
}
