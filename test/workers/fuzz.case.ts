// Random and mutated input against every route of the table and every
// WebSocket frame type: never a 500, always the one error shape, and a
// rejected request never changes the session. Fixed seed, fixed runs.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expectErrorShape,
  hostile,
  mutate,
  pathOf,
  RUNS,
  SEED,
  VALID
} from "./fuzz-inputs";
import { call, createSession, send, readable as snapshot } from "./helpers";
import { ROUTE_TABLE } from "./tables";
import { type Frame, hasType, openSocket } from "./ws-helpers";

export const fuzzRoutes = (
  pick: (key: string) => boolean,
  withQueries: boolean
): void => {
  describe("fuzzing the HTTP routes", { timeout: 120_000 }, () => {
    const bodyRoutes = ROUTE_TABLE().filter((r) => r.body);

    if (withQueries)
      it("covers every route with a body", () => {
        expect(bodyRoutes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
          Object.keys(VALID).sort()
        );
      });

    for (const route of bodyRoutes) {
      const key = `${route.method} ${route.path}`;
      if (!pick(key)) continue;
      it(`never answers 500 and never changes the session on rejection: ${key}`, async () => {
        const s = await createSession({ environment: "lab" });
        await s.call("/reset", send("POST", {}));
        await s.call(
          "/environment/bump/results",
          send("POST", { objects: [{ seed: 1 }] })
        );
        let before = await snapshot(s);
        await fc.assert(
          fc.asyncProperty(
            mutate(VALID[key]),
            fc.oneof(fc.constantFrom("bump", "note", "results"), hostile),
            fc.constantFrom("0", "-1", "1", "x", "99999999999999999999"),
            async (body, name, index) => {
              const path = pathOf(
                route.path,
                s,
                route.path.includes("{tool}") && route.path.includes("/tools/")
                  ? name
                  : "bump",
                name,
                index
              );
              const res =
                route.auth === "session"
                  ? await s.call(
                      path.replace(`/v1/sessions/${s.session_id}`, ""),
                      {
                        method: route.method,
                        body: JSON.stringify(body),
                        headers: { "Content-Type": "application/json" }
                      }
                    )
                  : await call(path, {
                      method: route.method,
                      body: JSON.stringify(body),
                      headers: { "Content-Type": "application/json" }
                    });
              const status = res.status;
              if (status === 202) {
                // A run changes the session from the alarm: let it finish
                // before the next comparison.
                const { run_id } = (await res.clone().json()) as {
                  run_id: string;
                };
                await (await s.call(`/runs/${run_id}?wait=20`)).text();
              }
              await expectErrorShape(res.clone());
              await res.body?.cancel();
              if (route.auth !== "session") return;
              const after = await snapshot(s);
              if (status >= 400) expect(after).toBe(before);
              before = after;
            }
          ),
          { seed: SEED, numRuns: RUNS, endOnFailure: true }
        );
      });
    }

    if (withQueries)
      it("never answers 500 to random query strings", async () => {
        const s = await createSession({ environment: "lab" });
        await s.call("/reset", send("POST", {}));
        const queryRoutes = [
          "/environment",
          "/environment/keys",
          "/messages",
          "/events",
          "/state",
          "/frame",
          "/hidden"
        ];
        await fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...queryRoutes),
            fc.dictionary(
              fc.constantFrom(
                "tool",
                "name",
                "index",
                "cursor",
                "limit",
                "after",
                "max_bytes",
                "__proto__"
              ),
              fc.oneof(fc.string(), fc.integer().map(String), hostile)
            ),
            async (route, query) => {
              const qs = new URLSearchParams(query).toString();
              const res = await s.call(`${route}?${qs}`);
              await expectErrorShape(res);
            }
          ),
          { seed: SEED, numRuns: RUNS * 3, endOnFailure: true }
        );
      });
  });
};

export const fuzzSocket = (): void => {
  describe("fuzzing the WebSocket", { timeout: 120_000 }, () => {
    it("answers every random frame in band, keeps the socket open and changes nothing on rejection", async () => {
      const s = await createSession({ environment: "lab" });
      await s.call("/reset", send("POST", {}));
      const sock = await openSocket(s.session_id, s.token);
      await sock.until(hasType("session.snapshot"));
      const frameTypes = [
        "step",
        "reset",
        "call",
        "cancel",
        "resume",
        "ping",
        "ack",
        "nope"
      ];
      let n = 0;
      let before = await snapshot(s);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...frameTypes),
          fc.dictionary(
            fc.oneof(
              fc.constantFrom(
                "id",
                "action",
                "task",
                "tool",
                "arguments",
                "after",
                "seq",
                "run_id",
                "idempotency_key"
              ),
              hostile
            ),
            fc.jsonValue()
          ),
          fc.boolean(),
          async (type, fields, raw) => {
            const id = `f${++n}`;
            const text = raw
              ? JSON.stringify(fields).slice(0, 7)
              : JSON.stringify({ ...fields, type, id });
            const seen = sock.frames.length;
            sock.send(text);
            // A call to a missing tool goes through the same queue and changes
            // nothing: once it is answered, the fuzzed frame was handled.
            const probe = `probe${n}`;
            sock.send({ type: "call", id: probe, tool: "missing_tool" });
            const frames = await sock.until((f) =>
              f.slice(seen).some((x) => x.id === probe)
            );
            const answers = frames
              .slice(seen)
              .filter(
                (x: Frame) =>
                  x.id !== probe &&
                  (x.type === "reply" || x.type === "protocol.error")
              );
            const rejected = answers.some(
              (x) =>
                x.type === "protocol.error" ||
                (x.type === "reply" && x.ok === false)
            );
            const after = await snapshot(s);
            if (rejected) expect(after).toBe(before);
            before = after;
          }
        ),
        { seed: SEED, numRuns: RUNS * 4, endOnFailure: true }
      );
      expect(sock.frames.some((f) => f.type === "protocol.error")).toBe(true);
      sock.ws.close();
    });
  });
};
