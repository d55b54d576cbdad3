/**
 * @module The bare Durable Object's answer to an OpenEnv frame: the least
 * Roost's OpenEnv channel must do for one, so the openenv scenario can
 * weigh the channel against it. Shared by both socket placements.
 */

/** What a frame asks of the object: an answer to send, and whether the socket ends. */
export interface FrameAnswer {
  reply?: string;
  close: boolean;
}

/**
 * `reset` and `step` append one row and answer an observation; `close`
 * deletes the object's storage (Roost deletes a socket's session with it)
 * and ends the socket unanswered, as OpenEnv's server does.
 */
export const answerFrame = async (
  storage: DurableObjectStorage,
  text: string
): Promise<FrameAnswer> => {
  const frame = JSON.parse(text) as { type?: unknown };
  if (frame.type === "close") {
    await storage.deleteAll();
    return { close: true };
  }
  if (frame.type !== "reset" && frame.type !== "step")
    return {
      reply: JSON.stringify({ type: "error", data: { code: "UNKNOWN_TYPE" } }),
      close: false
    };
  const { id } = storage.sql
    .exec<{ id: number }>(
      "INSERT INTO log (body) VALUES (?) RETURNING id",
      text
    )
    .one();
  return {
    reply: JSON.stringify({
      type: "observation",
      data: { observation: { id }, reward: 0, done: false }
    }),
    close: false
  };
};
