/** @module Reading Roost's socket messages as a client does: a batch is its events, in order. */

import type { RawData } from "ws";

export interface Frame {
  type: string;
  seq?: number;
  [key: string]: unknown;
}

/** The frames of one message: a batch's events, or the message itself. */
export const framesOf = (data: RawData | string): Frame[] => {
  const message = JSON.parse(String(data)) as Frame;
  return message.type === "batch" ? (message.events as Frame[]) : [message];
};
