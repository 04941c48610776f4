/**
 * What a2a-python (iac-code's SDK) signs instead of RFC 8785 text: `json.dumps(card, sort_keys=True,
 * separators=(",", ":"))` of `MessageToDict(card)`. It differs from JCS in three ways that break a
 * signature: every number inside a protobuf Struct (extension `params`) is a Python float and is
 * written `1024.0`, `1e-05` or `1e+16`; every character outside printable ASCII is a `\uXXXX` escape
 * (ensure_ascii); keys sort by code point instead of UTF-16 code unit.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return pythonFloat(value);
  if (typeof value === 'string') return asciiString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort(byCodePoint);
    return `{${keys.map((key) => `${asciiString(key)}:${pythonJsonDumps(record[key])}`).join(',')}}`;
  }
  throw new TypeError(`a ${typeof value} is not JSON data`);
}

function byCodePoint(a: string, b: string): number {
  const left = Array.from(a, (char) => char.codePointAt(0) as number);
  const right = Array.from(b, (char) => char.codePointAt(0) as number);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    if (left[i] !== right[i]) return (left[i] as number) - (right[i] as number);
  }
  return left.length - right.length;
}

const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function asciiString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    const code = text.charCodeAt(i);
    if (ESCAPES[char]) out += ESCAPES[char];
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** Python's repr() of a float: the shortest round-trip digits, in exponent form below 1e-4 and from 1e16 on. */
export function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}
