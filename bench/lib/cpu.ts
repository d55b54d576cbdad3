/** @module CPU time of the workerd processes a `wrangler dev` started (Linux /proc), to weigh requests by work rather than latency. */

import { readdirSync, readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** A workerd process of group `pgid`: its pid and its /proc stat fields after `(comm)`. */
export interface WorkerdProcess {
  pid: number;
  fields: string[];
}

/** Every workerd process in the process group `pgid`, or undefined where /proc is unavailable. */
export const workerdProcesses = (
  pgid: number
): WorkerdProcess[] | undefined => {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const found: WorkerdProcess[] = [];
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp … utime stime …": comm may hold spaces.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (comm === "workerd" && Number(fields[2]) === pgid)
      found.push({ pid: Number(pid), fields });
  }
  return found;
};

/**
 * Milliseconds of CPU used so far by every workerd process in the process
 * group `pgid`, or undefined where /proc is unavailable.
 */
export const workerdCpuMs = (pgid: number): number | undefined => {
  const found = workerdProcesses(pgid);
  if (found === undefined || found.length === 0) return undefined;
  let ticks = 0;
  for (const { fields } of found)
    ticks += Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / TICKS_PER_SECOND;
};
