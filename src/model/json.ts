/** A JSON object as it arrives off the wire, before any schema has looked at it. */
export type JsonObject = Record<string, unknown>;

/** A plain JSON object: not null, not an array. */
export const isRecord = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
