import { fuzzRoutes } from "./fuzz.case";

fuzzRoutes(
  (key) => !key.includes("/environment/") && !key.includes("/state"),
  true
);
