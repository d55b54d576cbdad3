/**
 * @module Memory of the workerd process that runs the worker and its
 * Durable Objects while a read runs: its resident set from Linux /proc
 * (the kernel's own peak, VmHWM, reset before each read) and the isolate's
 * V8 heap over the DevTools protocol, sampled as the read goes.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { workerdProcesses } from "./cpu";
import type { DevTools } from "./devtools";

/**
 * `wrangler dev` runs two workerd processes in its group: one serves the
 * public port (wrangler's proxy), the other the worker itself. Answers the
 * worker's: the one whose command line does not name `port`.
 */
export const runtimeWorkerd = (pgid: number, port: number): number => {
  const found = (workerdProcesses(pgid) ?? [])
    .map((p) => p.pid)
    .filter((pid) => {
      try {
        return !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(
          `127.0.0.1:${port}`
        );
      } catch {
        return false; // exited meanwhile
      }
    });
  if (found.length !== 1) {
    throw new Error(
      `Expected one workerd running the worker in group ${pgid}, found ${found.length}.`
    );
  }
  return found[0]!;
};

/** Resident and peak resident bytes of `pid` (VmRSS, VmHWM). */
export const residency = (pid: number): { rss: number; hwm: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kib("VmRSS") * 1024, hwm: kib("VmHWM") * 1024 };
};

/** Resets the kernel's peak (VmHWM) to the present resident set; false where Linux does not allow it. */
const resetPeak = (pid: number): boolean => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
};

export interface MemoryDuring {
  rssBefore: number;
  /** The kernel's peak since the read began, or the sampled one where it cannot be reset. */
  rssPeak: number;
  heapBefore: number;
  heapPeak: number;
  /** The heap once the read ended and garbage was collected: what it left behind. */
  heapAfter: number;
  /** Heap samples taken while the read ran. */
  samples: number;
  ms: number;
}

/** How often the heap and the resident set are sampled while a read runs. */
const SAMPLE_MS = 10;

/**
 * A full garbage collection. workerd runs it only when the isolate next
 * takes a request, so `poke` (a cheap request) is sent until the
 * collection is answered.
 */
export const collectGarbage = async (
  dt: DevTools,
  poke: () => Promise<unknown>
): Promise<void> => {
  let done = false;
  const collected = dt.send("HeapProfiler.collectGarbage").finally(() => {
    done = true;
  });
  while (!done) {
    await poke();
    await Promise.race([collected, new Promise((r) => setTimeout(r, 50))]);
  }
  await collected;
};

/** V8's used heap now. */
export const usedHeap = async (dt: DevTools): Promise<number> =>
  (await dt.send<{ usedSize: number }>("Runtime.getHeapUsage")).usedSize;

export class MemoryProbe {
  /** `poke`: a cheap request to the worker (a `/health`). */
  constructor(
    readonly pid: number,
    readonly dt: DevTools,
    readonly poke: () => Promise<unknown>
  ) {}

  collectGarbage(): Promise<void> {
    return collectGarbage(this.dt, this.poke);
  }

  heap(): Promise<number> {
    return usedHeap(this.dt);
  }

  /**
   * Runs `read` after a full garbage collection, sampling the heap and the
   * resident set until it ends; then collects again. The peak heap holds
   * garbage V8 had not yet collected (large strings wait for a full
   * collection), the heap after holds only what the read left behind.
   */
  async during<T>(
    read: () => Promise<T>
  ): Promise<{ value: T; memory: MemoryDuring }> {
    await this.collectGarbage();
    const heapBefore = await this.heap();
    const kernelPeak = resetPeak(this.pid);
    const rssBefore = residency(this.pid).rss;
    let rssSampled = rssBefore;
    let heapPeak = heapBefore;
    let samples = 0;
    let running = true;
    const sampler = (async () => {
      while (running) {
        heapPeak = Math.max(heapPeak, await this.heap());
        rssSampled = Math.max(rssSampled, residency(this.pid).rss);
        samples++;
        await new Promise((r) => setTimeout(r, SAMPLE_MS));
      }
    })();
    const started = performance.now();
    let value: T;
    try {
      value = await read();
    } finally {
      running = false;
      await sampler;
    }
    const ms = performance.now() - started;
    const rssPeak = kernelPeak ? residency(this.pid).hwm : rssSampled;
    await this.collectGarbage();
    return {
      value,
      memory: {
        rssBefore,
        rssPeak,
        heapBefore,
        heapPeak,
        heapAfter: await this.heap(),
        samples,
        ms
      }
    };
  }
}
