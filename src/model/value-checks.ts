/** The small predicates the hand-written checks of the hot path's objects share (model/well-formed.ts, protocol/v025/well-formed.ts). */

export const optional = (value: unknown, check: (v: unknown) => boolean): boolean => value === undefined || check(value);
export const isString = (value: unknown): boolean => typeof value === 'string';
export const isId = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
export const isBoolean = (value: unknown): boolean => typeof value === 'boolean';
export const isStringArray = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
