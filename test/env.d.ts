// Bindings the workerd tests see (test/wrangler.toml plus vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    SESSIONS: DurableObjectNamespace<
      import("../src/session/session-object").SessionObject
    >;
    /** Sessions of a deployment whose judges ask the scripted grader (test/fixtures/judged.ts). */
    JUDGED: DurableObjectNamespace<
      import("../src/session/session-object").SessionObject
    >;
    /** Sessions of a worker with no layer (test/worker.ts's CoreSession). */
    CORE: DurableObjectNamespace<
      import("../src/session/session-object").SessionObject
    >;
    /** Sessions of a worker with a layer written in a test (hello-layer.ts). */
    HELLO: DurableObjectNamespace<
      import("../src/session/session-object").SessionObject
    >;
    /** The task statistics' objects and OAuth's ledger (src/layers). */
    TASK_STATS: DurableObjectNamespace;
    OAUTH_LEDGER: DurableObjectNamespace;
    /** Dynamic Workers: the isolates code tools start (test/fixtures/code.ts). */
    LOADER: WorkerLoader;
    ROOST_DEV?: string;
    ROOST_SECRETS?: string;
    ROOST_API_KEYS?: string;
    ROOST_CORS_ORIGINS?: string;
  }
}

/** A file as text, as vite imports it (`import page from "./x.md?raw"`). */
declare module "*?raw" {
  const text: string;
  export default text;
}
