// A port nothing listens on right now: for the benchmarks' servers. Tests
// take theirs through test/node/helpers/test-port.ts, which keeps them in
// ROOST_TEST_PORTS' range when it is set.
import { createServer } from "node:net";

export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port"))
      );
    });
  });
