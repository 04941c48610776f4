/** The UTF-16 codes of JSON's structural characters, for the scanners that read a body JSON.parse already took. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** JSON's four white-space characters (RFC 8259), no others. */
export const isJsonSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
