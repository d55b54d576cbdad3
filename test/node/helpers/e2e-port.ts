/**
 * The ports of the `wrangler dev` the end-to-end tests share (node, browser
 * and giant configs share one global setup): free ones (from
 * ROOST_TEST_PORTS' range when it is set), or the ones ROOST_E2E_PORT and
 * ROOST_INSPECTOR_PORT pin, so a person can reach the server the tests
 * drive (curl, the inspector in a browser, DevTools on its isolate) or fit
 * a firewall rule.
 */
import { claim, claimed, isFree, testPort } from "./test-port";

/**
 * A pinned port that is taken fails here, before wrangler starts: otherwise
 * the readiness probe would be answered by whatever holds the port and the
 * tests would run against it.
 */
const pinnedPort = async (
  name: string,
  setting: string | undefined,
  range: string | undefined
): Promise<number> => {
  const text = setting?.trim() ?? "";
  if (text === "") return testPort(range);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535)
    throw new Error(
      `${name}=${setting} is not a port: give a whole number from 1 to 65535, or leave it unset for a free port.`
    );
  if (claimed(port))
    throw new Error(
      `${name}=${port}: another server of this run already has that port. Pin another one.`
    );
  if (!(await isFree(port)))
    throw new Error(
      `${name}=${port}: something already listens on 127.0.0.1:${port}. Stop it, pin another port, or leave ${name} unset for a free one.`
    );
  claim(port);
  return port;
};

/** The shared server's HTTP port. */
export const e2ePort = (
  setting: string | undefined = process.env.ROOST_E2E_PORT,
  range: string | undefined = process.env.ROOST_TEST_PORTS
): Promise<number> => pinnedPort("ROOST_E2E_PORT", setting, range);

/** The shared server's inspector port (wrangler dev's `--inspector-port`). */
export const e2eInspectorPort = (
  setting: string | undefined = process.env.ROOST_INSPECTOR_PORT,
  range: string | undefined = process.env.ROOST_TEST_PORTS
): Promise<number> => pinnedPort("ROOST_INSPECTOR_PORT", setting, range);
