/** @module What a mutation's staged writes are watched by: the meter before each write, an event after it. */

import type { JsonValue } from "../json";
import type { Message } from "../messages/schema";
import type { Emit, EventData } from "../protocol";
import type { WriteWatch } from "../state/overlay-backend";
import type { StoreWriteWatch } from "../store/overlay-backend";
import type { StepMeter } from "./meter";

export interface Watches {
  store: StoreWriteWatch;
  state: WriteWatch<[key: string, value: JsonValue]>;
  transcript: WriteWatch<[messages: Message[], first: number]>;
  hidden: (key: string, value: JsonValue) => void;
}

/**
 * The meter refuses a write that crosses a limit before it is staged; the
 * events go out once it was, in the order the writes happened.
 */
export const watches = (meter: StepMeter, emit: Emit): Watches => ({
  store: {
    beforeWrite: (store, entry, append) => {
      if (append) meter.addEntry(store);
      meter.charge(entry);
    },
    afterWrite: (op, tool, name, index) =>
      emit("store.changed", {
        op,
        tool,
        name,
        ...(index === undefined ? {} : { index })
      })
  },
  state: {
    before: (_key, value) => meter.charge(value),
    after: (key, value) => emit("state.changed", { key, value })
  },
  transcript: {
    before: (messages) => meter.charge(messages),
    after: (messages, first) =>
      messages.forEach((message, i) => {
        emit("message", {
          message: message as EventData<"message">["message"],
          index: first + i
        });
      })
  },
  hidden: (_key, value) => meter.charge(value)
});
