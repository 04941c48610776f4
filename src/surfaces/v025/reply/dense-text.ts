/**
 * A text's characters that are not white space, read where the rules (rules.ts) compare a message with what the
 * reply showed. Read code unit by code unit rather than as a copy made by `replace(/\s+/g, '')`: a turn of a few
 * short messages asked that some twenty times, and each regular-expression replace cost some 2,600 instructions
 * against some 600 for the loop (bench/README.md, forty-fifth pass). White space is exactly what `\s` matches,
 * none of it outside the Basic Multilingual Plane, so a code unit at a time reads it as the regular expression did.
 */

/** Whether a UTF-16 code unit is white space as `\s` reads it: ECMAScript's WhiteSpace and LineTerminator. */
export function isWhiteSpaceCode(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** How many characters (code units) of `text` are not white space. */
export function denseLength(text: string): number {
  let dense = 0;
  for (let at = 0; at < text.length; at++) if (!isWhiteSpaceCode(text.charCodeAt(at))) dense++;
  return dense;
}

/** Whether two texts say the same, white space aside: `a.replace(/\s+/g, '') === b.replace(/\s+/g, '')`, without the copies. */
export function sameDense(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && isWhiteSpaceCode(a.charCodeAt(i))) i++;
    while (j < b.length && isWhiteSpaceCode(b.charCodeAt(j))) j++;
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
    i++;
    j++;
  }
}
