/** Reading the fields of iac-code's metadata, which arrives from a Python server through protobuf's Struct. */

/** A string field, or undefined when it is absent, not a string, or blank. */
export const textField = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** A count, which Struct turns into a float (`3.0`), as an integer. */
export const countField = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : undefined;
