/** @module `GET /v1/sessions/:id/events?after=N`: the retained event log, the same one resume serves. */

import * as z from "zod";
import { lazy } from "../lazy";
import { EventFrameSchema } from "./event-frames";
import { integerString } from "./query";
import { maxBytesParam, truncatedSchema } from "./read-budget";

/** Events per page of `/events`; `max_bytes` bounds a page's bytes. */
export const EVENTS_PAGE = { default: 1000, max: 10_000 } as const;

export const EventsQuerySchema = lazy(() =>
  z.object({
    /** Events with `seq` greater than this; 0 for everything retained. */
    /**
     * Events with `seq` greater than this: a 410 when some of them were
     * trimmed (the reader would miss them). Absent, every retained event,
     * from the oldest: what a viewer that has seen nothing yet asks for.
     */
    after: integerString({ min: 0, max: Number.MAX_SAFE_INTEGER }).optional(),
    limit: integerString({
      min: 1,
      max: EVENTS_PAGE.max,
      default: EVENTS_PAGE.default
    }),
    max_bytes: maxBytesParam()
  })
);
export type EventsQuery = z.infer<ReturnType<typeof EventsQuerySchema>>;

export const EventsResponseSchema = lazy(() =>
  z
    .object({
      events: z.array(EventFrameSchema()),
      /** Pass as `after` for the next page: the last `seq` returned, or `after` when none were. */
      next_after: z.number().int().nonnegative(),
      truncated: truncatedSchema()
    })
    .meta({ id: "EventsResponse", description: "Retained events after a seq." })
);
export type EventsResponse = z.infer<ReturnType<typeof EventsResponseSchema>>;
