import { A2AError } from '../../model/index.js';

/**
 * `statusTimestampAfter` as the HTTP+JSON binding's query carries it. ProtoJSON writes a Timestamp as
 * RFC 3339, but the official a2a-js 1.x client (whose type says string, where a JavaScript caller
 * gives a Date) puts the Date into the query as it is, so the value arrives as the Date prints itself (`Sat Dec 05 2026 04:00:40 GMT+0000
 * (Coordinated Universal Time)`); an a2a-js server reads anything `Date.parse` reads. The gateway
 * takes both:
 * - an RFC 3339 value (the grammar the task registry orders by, fractions to the microsecond) goes on
 *   as it came, so no precision is lost;
 * - a value in one of the forms a JavaScript Date prints itself (`toString`, `toUTCString`) is
 *   written as RFC 3339 (`toISOString`), which the registry and JSON-RPC and gRPC callers use;
 * - anything else, `Date.parse` reading it or not (`1`, `hello 2020`, `2026-12-05`, `Sat Feb 31 …`),
 *   is a 400 naming the field: a filter read as some other instant would list the wrong tasks.
 * An empty value is no filter, as the registry and a2a-js read it.
 */

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;
const DAY = '(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** `Date.prototype.toString`: `Sat Dec 05 2026 04:00:40 GMT+0100 (Central European Standard Time)`. */
const DATE_TO_STRING = new RegExp(`^${DAY} ${MONTH} (\\d{2}) (\\d{4}) ${TIME} GMT([+-])(\\d{2})(\\d{2})(?: \\([^()]{0,100}\\))?$`);
/** `Date.prototype.toUTCString`: `Sat, 05 Dec 2026 04:00:40 GMT`. */
const DATE_TO_UTC_STRING = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);

const DESCRIPTION = 'must be an RFC 3339 timestamp';

function invalid(): A2AError {
  return A2AError.invalidParams(`Invalid params: statusTimestampAfter: ${DESCRIPTION}`, [
    { field: 'statusTimestampAfter', description: DESCRIPTION },
  ]);
}

/** The instant a JavaScript Date's printed form names, or undefined for anything else (a day the month lacks included). */
function printedDate(raw: string): number | undefined {
  const local = DATE_TO_STRING.exec(raw);
  const utc = local ? undefined : DATE_TO_UTC_STRING.exec(raw);
  if (!local && !utc) return undefined;
  const [month, day, offsetMinutes] = local
    ? [local[1], local[2], (local[4] === '-' ? -1 : 1) * (Number(local[5]) * 60 + Number(local[6]))]
    : [utc?.[2], utc?.[1], 0];
  const instant = Date.parse(raw);
  if (Number.isNaN(instant)) return undefined;
  // Date.parse rolls `Feb 31` over into March: the day must be the one written, in the zone written.
  const written = new Date(instant + offsetMinutes * 60_000);
  const sameDay = written.getUTCDate() === Number(day) && MONTHS[written.getUTCMonth()] === month;
  return sameDay ? instant : undefined;
}

/** The value to pass on as `statusTimestampAfter`, undefined for no filter; a 400 naming the field when unreadable. */
export function restStatusTimestampAfter(raw: string): string | undefined {
  if (raw === '') return undefined;
  if (RFC3339.test(raw)) return raw;
  const instant = printedDate(raw);
  if (instant === undefined) throw invalid();
  const iso = new Date(instant).toISOString();
  // A year the Date prints with four digits but outside RFC 3339's (`+010000-…`) cannot be one.
  if (!RFC3339.test(iso)) throw invalid();
  return iso;
}
