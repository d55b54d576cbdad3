/**
 * @module The sandbox host's worker, as the source its workerd loads: it
 * takes one run per WebSocket from a session (session/sandbox-host.ts has
 * the protocol), starts the isolate with its own Worker Loader, and passes
 * each capability call back to the session over the socket.
 */

/** The host worker's module source; `memoryMb` is what it tells sessions its heap cap is. */
export const sandboxHostWorker = (memoryMb: number): string => `
const MEMORY_MB = ${JSON.stringify(memoryMb)};

const serve = (socket, loader) => {
  const pending = new Map();
  let next = 0;
  let started = false;
  const send = (message) => {
    try { socket.send(JSON.stringify(message)); } catch {}
  };
  const call = (group, method, args) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      send({ type: "call", id, group, method, args });
    });
  const run = async (message) => {
    const capabilities = {};
    for (const [group, methods] of Object.entries(message.shape ?? {})) {
      capabilities[group] = {};
      for (const method of methods) {
        capabilities[group][method] = (...args) => call(group, method, args);
      }
    }
    try {
      const worker = loader.load(message.worker);
      const value = await worker.getEntrypoint().run(message.input, capabilities);
      send({ type: "reply", value });
    } catch (error) {
      send({ type: "failed", message: String(error?.message ?? error) });
    }
    try { socket.close(1000, "done"); } catch {}
  };
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "answer") {
      const waiting = pending.get(message.id);
      if (waiting === undefined) return;
      pending.delete(message.id);
      if (message.ok) waiting.resolve(message.value);
      else {
        const error = new Error(message.message);
        error.name = message.name;
        waiting.reject(error);
      }
    } else if (message.type === "run" && !started) {
      started = true;
      void run(message);
    }
  });
  // The session left (it gave up on the run): the code's calls fail.
  socket.addEventListener("close", () => {
    for (const waiting of pending.values()) {
      waiting.reject(new Error("this code run has ended: its capabilities no longer answer."));
    }
    pending.clear();
  });
  send({ type: "hello", memoryMb: MEMORY_MB });
};

export default {
  fetch(request, env) {
    if (request.headers.get("Upgrade") !== "websocket") {
      return new Response("Roost's sandbox host: code runs of the development server's sessions.", { status: 426 });
    }
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    serve(server, env.LOADER);
    return new Response(null, { status: 101, webSocket: client });
  }
};
`;
