/** @module The startup scenario's reference: the smallest Hono worker, one route. */

import { Hono } from "hono";

export default new Hono().get("/health", (c) => c.text("ok"));
