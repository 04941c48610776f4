/** What the explore-iac-code tests compare across bindings: an SDK value with the parts that differ by nature taken out. */

/** Any SDK value as plain JSON, with ids and times replaced by their order of appearance and bytes as text. */
export function normalized(value: unknown): unknown {
  const ids = new Map<string, string>();
  const idOf = (id: string) => {
    if (!ids.has(id)) ids.set(id, `id${ids.size}`);
    return ids.get(id)!;
  };
  const walk = (node: unknown, key = ''): unknown => {
    if (node instanceof Uint8Array) return `bytes:${Buffer.from(node).toString('base64')}`;
    if (node instanceof Date) return 'time';
    if (Array.isArray(node)) return node.map((item) => walk(item));
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, k)]));
    }
    if (
      typeof node === 'string' &&
      /^(id|taskId|contextId|messageId|artifactId|requestTaskId|inputId|toolUseId|referenceTaskIds|eventId|runId)$/.test(key) &&
      node
    )
      return idOf(node);
    if (typeof node === 'string' && /timestamp|time$|At$/i.test(key)) return 'time';
    if (typeof node === 'string') return node.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => idOf(id));
    return node;
  };
  return walk(value);
}
