/** The response header that carries activated extensions: `A2A-Extensions` in 1.0, `X-A2A-Extensions` before. */
export type ExtensionsHeader = 'A2A-Extensions' | 'X-A2A-Extensions';

/**
 * Collects what the upstream reported as activated for one call; a call may reach the upstream more
 * than once (a continuation), so the URIs accumulate without repeats.
 */
export function activatedExtensions(): { add(uris: readonly string[]): void; list(): string[] } {
  const seen = new Set<string>();
  return {
    add: (uris) => uris.forEach((uri) => seen.add(uri)),
    list: () => [...seen],
  };
}

/** The response with the activated extensions echoed in the caller's header; unchanged when there are none. */
export function echoExtensions(response: Response, uris: readonly string[], header: ExtensionsHeader): Response {
  if (uris.length > 0) response.headers.set(header, uris.join(', '));
  return response;
}
