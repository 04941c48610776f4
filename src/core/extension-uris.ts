/** Extension URIs in an `A2A-Extensions`/`X-A2A-Extensions` value (comma-separated, possibly repeated). */
export function parseExtensionUris(raw: string | null | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri.length > 0);
}
