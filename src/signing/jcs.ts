/**
 * The JSON Canonicalization Scheme (RFC 8785): object members sorted by the UTF-16 code units of
 * their names, no whitespace, strings and numbers serialized as ECMAScript's JSON.stringify does
 * (which is what the RFC adopts). Values outside I-JSON (non-finite numbers, lone surrogates,
 * anything that is not JSON data) are refused rather than silently changed.
 */
export function canonicalize(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('JCS: numbers must be finite');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return canonicalString(value);
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      // Array.prototype.sort compares UTF-16 code units, exactly the order §3.2.3 asks for.
      .sort()
      .map((key) => `${canonicalString(key)}:${canonicalize(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`JCS: a ${typeof value} is not JSON data`);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function canonicalString(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new TypeError('JCS: strings must be well-formed Unicode');
  return JSON.stringify(text);
}
