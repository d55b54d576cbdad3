/** A port nothing listens on right now, on 127.0.0.1. */
export declare const freePort: () => Promise<number>;
