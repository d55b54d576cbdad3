// `--port` and `--ip` among wrangler's arguments are the dev server's own:
// wrangler gets each once, and the port check and next steps use them.
import { describe, expect, it } from "vitest";
import { takeListen } from "../../src/cli/dev-listen";

describe("--port and --ip among wrangler's arguments", () => {
  const defaults = { port: 8787, ip: "127.0.0.1" };

  it("are dev's own, in either form, over the defaults", () => {
    expect(
      takeListen(
        ["--log-level", "warn", "--port", "9105", "--ip=0.0.0.0"],
        defaults
      )
    ).toEqual({ port: 9105, ip: "0.0.0.0", rest: ["--log-level", "warn"] });
    expect(takeListen(["--port=9106"], defaults)).toEqual({
      port: 9106,
      ip: "127.0.0.1",
      rest: []
    });
    expect(takeListen(["--inspector-port", "9300"], defaults)).toEqual({
      ...defaults,
      rest: ["--inspector-port", "9300"]
    });
  });

  it("say what is wrong with a missing or bad value", () => {
    expect(takeListen(["--port"], defaults)).toMatch(/--port needs a value/);
    expect(takeListen(["--port", "--log-level"], defaults)).toMatch(
      /--port needs a value/
    );
    expect(takeListen(["--port=80a"], defaults)).toBe(
      '--port must be a port from 1 to 65535, not "80a".'
    );
    expect(takeListen(["--port", "70000"], defaults)).toMatch(/not "70000"/);
  });
});
