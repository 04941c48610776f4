/**
 * A webhook as the log names it: its origin (scheme, host and port), never its path, query or user info, which may
 * carry the receiver's credentials (`?sig=…`). Enough for an operator to find the receiver that is down; the
 * config itself is sealed in the store.
 */
export function webhookOrigin(url: string): string | undefined {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
