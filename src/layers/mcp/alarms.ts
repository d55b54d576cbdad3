/** @module The timers of tool-call tasks: the lease that drives pending calls, and their expiry. */

import type { AlarmHandler } from "../../session/layer";
import type { TimerKind } from "../../session/schedule";
import { tasksOf } from "./call-tasks";

export const TASK_ALARMS: Partial<Record<TimerKind, AlarmHandler>> = {
  // Drives pending task calls; while this instance drives them already,
  // the lease only moves on (an alarm left due would fire again at once).
  task: async ({ runtime, now }) => {
    const tasks = tasksOf(runtime);
    if (tasks.driving) tasks.renewLease(now);
    else await tasks.drive();
    return undefined;
  },
  taskExpiry: async ({ shared, runtime, now }) => {
    shared.storage.transactionSync(() => tasksOf(runtime).expire(now));
    return undefined;
  }
};
