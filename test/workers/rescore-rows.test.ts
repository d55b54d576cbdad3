// What re-scoring and a fork at a past step read of the records kept
// beside the log (storage/rescore-rows.ts), counted as Cloudflare bills
// them: rows read.

import { describe, expect, it } from "vitest";
import { recordedResets } from "../../src/storage/rescore-rows";
import { RowMeter } from "../../src/storage/row-meter";
import {
  inside,
  newResetSession,
  ok,
  type SessionApi,
  toolAction
} from "./session-helpers";

const EPISODES = 3;
const STEPS = 20;

/** `branchy` (branchable, so it records as a rubric registry would) played for EPISODES episodes of STEPS steps: a record row per step. */
const played = async (): Promise<SessionApi> => {
  const { stub } = await newResetSession("branchy");
  for (let e = 0; e < EPISODES; e++) {
    if (e > 0) ok(await stub.reset({}));
    for (let i = 0; i < STEPS; i++)
      ok(await stub.step({ action: toolAction("note", { text: "n" }) }));
  }
  return stub;
};

describe("the records re-scoring keeps beside the log", () => {
  it("finds each retained episode's reset by the key: a few rows read per episode, not every step's row", async () => {
    const stub = await played();
    const { rows, resets, scanned, read, later } = await inside(
      stub,
      (_o, state) => {
        const sql = state.storage.sql;
        // Every reset record, by reading every row: what the lookup must equal.
        const scanned = sql
          .exec<{ episode: number; seq: number }>(
            `SELECT episode, seq FROM rescore_log
             WHERE part = 0 AND substr(body, 1, 9) = '{"reset":' ORDER BY episode`
          )
          .toArray();
        const rows = sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM rescore_log")
          .one().n;
        const meter = new RowMeter(state.storage);
        try {
          const resets = recordedResets(sql, 0);
          const read = meter.take().rowsRead;
          // An episode whose reset event retention trimmed is left out.
          const later = recordedResets(sql, scanned[1]!.seq);
          return { rows, resets, scanned, read, later };
        } finally {
          meter.stop();
        }
      }
    );
    expect(resets).toEqual(scanned);
    expect(resets.map((r) => r.episode)).toEqual([1, 2, 3]);
    expect(later).toEqual(scanned.slice(1));
    expect(rows).toBeGreaterThanOrEqual(EPISODES * STEPS);
    // Six rows an episode (measured: 18 for three), however many steps it had.
    expect(read).toBeLessThanOrEqual(6 * EPISODES);
  });
});
