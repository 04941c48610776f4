/**
 * A text cut to at most `maxBytes` of UTF-8, ending in "..." when cut, never inside a character: a lone
 * surrogate is no Unicode, and protobuf's string encoder and grpc-js's `encodeURI` of `grpc-message`
 * would mangle or refuse it. gRPC trailers are bounded in bytes, not characters (a Chinese character is
 * three bytes, an emoji four), hence bytes.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let cut = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes - 3) break;
    cut += char.length;
  }
  return `${text.slice(0, cut)}...`;
}
