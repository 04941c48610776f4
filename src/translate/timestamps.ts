/**
 * Loose ISO 8601 as 0.2.5 producers write it: date, optional time with optional fraction, optional
 * zone. A space instead of `T` and a comma before the fraction are tolerated.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * RFC 3339 UTC with `Z`, as A2A 1.0 requires (S100 §5.6.1): a naive time is taken as UTC, an offset
 * is converted. The fraction's digits are kept (up to nanoseconds). Unparseable input gives
 * undefined, because strict ProtoJSON parsers reject the whole object over a bad timestamp.
 */
export function toRfc3339Utc(value: string): string | undefined {
  const match = ISO_8601.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction, , sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Math.min(Number(s), 59); // a leap second folds onto :59
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || Number(s) > 60) return undefined;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(local);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return undefined; // e.g. 02-30
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om ?? '0')) : 0;
  if (Math.abs(offsetMinutes) > 18 * 60) return undefined;
  const iso = new Date(local - offsetMinutes * 60_000).toISOString();
  if (!/^\d{4}-/.test(iso)) return undefined;
  const digits = fraction ? `.${fraction.slice(0, 9)}` : '';
  return `${iso.slice(0, 19)}${digits}Z`;
}
