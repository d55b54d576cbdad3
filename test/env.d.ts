// Bindings the workerd tests see (test/wrangler.toml plus vitest.config.ts).
declare namespace Cloudflare {
  interface Env {
    SESSIONS: DurableObjectNamespace<
      import("../src/session/session-object").SessionObject
    >;
    ROOST_DEV?: string;
    ROOST_SECRETS?: string;
    ROOST_API_KEYS?: string;
    ROOST_CORS_ORIGINS?: string;
  }
}
