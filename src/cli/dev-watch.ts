/**
 * @module The development server's watch on its own workerd: when the
 * process that holds the sessions dies (killed, out of memory, a crash),
 * wrangler does not notice and every later request hangs. Here a vanished
 * workerd under wrangler, confirmed by a health check that no longer
 * answers, restarts wrangler; its local state (the sessions) is kept, so
 * every acknowledged write is there when it is back.
 */

import { readdirSync, readFileSync } from "node:fs";

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
}

/** Every process, from /proc; empty where there is none (not Linux). */
const processes = (): Proc[] => {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: Proc[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The name is in parentheses and may hold spaces: fields follow the last ")".
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      found.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        comm: stat.slice(stat.indexOf("(") + 1, close)
      });
    } catch {
      // Gone while listing.
    }
  }
  return found;
};

/** `root` and every process under it. */
export const descendants = (root: number): Proc[] => {
  const all = processes();
  const out: Proc[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!parents.has(p.pid) && parents.has(p.ppid)) {
        parents.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
};

/** Kills `root` and everything under it at once. */
export const killTree = (root: number): void => {
  for (const p of [{ pid: root }, ...descendants(root)]) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
};

/** Whether `url` answers (anything under a 500) within `ms`. */
export const answers = async (url: string, ms = 2_000): Promise<boolean> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(ms) });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
};

/**
 * Watches the workerd processes under `root` (wrangler); calls `dead`
 * once when one vanished and `health` failed twice in a row. A workerd
 * replaced by wrangler itself (a reload) answers the check and is let be.
 */
export const watchWorkerd = (
  root: number,
  health: string,
  dead: () => void
): { stop(): void } => {
  const workerds = () =>
    new Set(
      descendants(root)
        .filter((p) => p.comm === "workerd")
        .map((p) => p.pid)
    );
  let seen = workerds();
  let misses = 0;
  let checking = false;
  let stopped = false;
  const timer = setInterval(async () => {
    if (checking || stopped) return;
    const now = workerds();
    const vanished = [...seen].some((pid) => !now.has(pid));
    if (!vanished) {
      seen = new Set([...seen, ...now]);
      return;
    }
    checking = true;
    const ok = await answers(health);
    checking = false;
    if (stopped) return;
    if (ok) {
      seen = workerds();
      misses = 0;
      return;
    }
    misses += 1;
    if (misses >= 2) {
      stopped = true;
      clearInterval(timer);
      dead();
    }
  }, 500);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    }
  };
};
