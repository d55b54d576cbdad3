/**
 * @module Where a dev server keeps its sessions (wrangler's local state):
 * a folder of the project that outlives the server, by default, or the
 * server's own work folder, deleted when it stops. A kept folder serves
 * one server at a time: two workerd processes writing one SQLite file
 * would corrupt it.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file naming the server that keeps its sessions in a folder. */
const LOCK = "roost-dev.lock";

interface Holder {
  pid: number;
  port: number;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Takes `dir` for this server (on `port`); the holder, when another
 * running server has it. A holder that is gone (killed before it could
 * let go) is replaced.
 */
export const claimSessions = (
  dir: string,
  port: number
): Holder | undefined => {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK);
  try {
    const held = JSON.parse(readFileSync(file, "utf8")) as Holder;
    if (held.pid !== process.pid && alive(held.pid)) return held;
  } catch {
    // None, or unreadable: take it.
  }
  writeFileSync(file, JSON.stringify({ pid: process.pid, port }));
  return undefined;
};

/** Lets `dir` go, if this server holds it. */
export const releaseSessions = (dir: string): void => {
  const file = join(dir, LOCK);
  try {
    const held = JSON.parse(readFileSync(file, "utf8")) as Holder;
    if (held.pid === process.pid) rmSync(file, { force: true });
  } catch {
    // Gone already.
  }
};
