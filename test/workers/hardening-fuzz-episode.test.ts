import { fuzzRoutes } from "./fuzz.case";

// Split across files: the pool slows down as one file runs on, so each
// file fuzzes a few routes in a fresh isolate.
fuzzRoutes(
  (key) =>
    !key.includes("/environment") &&
    !key.includes("/state") &&
    !key.includes("/tools/") &&
    !key.includes("/runs") &&
    !key.includes("/mcp"),
  true
);
