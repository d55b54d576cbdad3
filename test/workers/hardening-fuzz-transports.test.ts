import { fuzzRoutes } from "./fuzz.case";

fuzzRoutes(
  (key) =>
    key.includes("/aviary/") ||
    key.includes("/openenv/") ||
    key.includes("/task-stats"),
  false
);
