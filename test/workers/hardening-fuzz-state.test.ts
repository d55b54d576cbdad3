import { fuzzRoutes } from "./fuzz.case";

fuzzRoutes(
  (key) => key.includes("/state") || key.endsWith("{name}/{index}"),
  false
);
