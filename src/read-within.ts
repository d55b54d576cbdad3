/** @module A response body read as text up to a byte cap: the one way Roost reads a body it did not write. */

/**
 * The body as text, read chunk by chunk; undefined the moment it passes
 * `maxBytes`, the stream then cancelled: a server that answers a gigabyte
 * costs the reader no more than the cap.
 */
export const textWithin = async (
  response: Response,
  maxBytes: number
): Promise<string | undefined> => {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
};
