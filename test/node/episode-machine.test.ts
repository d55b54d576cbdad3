// The episode contract in plain Node, on both in-memory sessions; the
// workerd side runs it on a session object (test/workers/episode-machine.test.ts).
import { describe } from "vitest";
import {
  localDriver,
  runEpisodeContract
} from "../../src/environment/episode-machine.case";
import { createEpisodeSession } from "../../src/environment/episode-session";
import { tally } from "../../src/environment/fixtures.case";
import { createLocalSession } from "../../src/runner/local-session";

describe("episodes in memory", () => {
  runEpisodeContract("createEpisodeSession", async () =>
    localDriver(createEpisodeSession(tally))
  );
  runEpisodeContract("createLocalSession", async () =>
    localDriver(createLocalSession(tally))
  );
});
