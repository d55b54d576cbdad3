/**
 * The port of the `wrangler dev` the end-to-end tests start (node, browser
 * and giant configs share one global setup): a free one, or the one
 * ROOST_E2E_PORT pins, so a person can reach the server the tests drive
 * (curl, the inspector in a browser) or fit a firewall rule.
 */
import { createServer } from "node:net";
import { freePort } from "../../../scripts/free-port.mjs";

/** Whether nothing listens on 127.0.0.1:`port` right now. */
const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

/**
 * A pinned port that is taken fails here, before wrangler starts: otherwise
 * the readiness probe would be answered by whatever holds the port and the
 * tests would run against it.
 */
export const e2ePort = async (
  setting: string | undefined = process.env.ROOST_E2E_PORT
): Promise<number> => {
  const text = setting?.trim() ?? "";
  if (text === "") return freePort();
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535)
    throw new Error(
      `ROOST_E2E_PORT=${setting} is not a port: give a whole number from 1 to 65535, or leave it unset for a free port.`
    );
  if (!(await isFree(port)))
    throw new Error(
      `ROOST_E2E_PORT=${port}: something already listens on 127.0.0.1:${port}. Stop it, pin another port, or leave ROOST_E2E_PORT unset for a free one.`
    );
  return port;
};
