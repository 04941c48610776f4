import type { Task } from '../../model/index.js';

// V8's sizes on 64-bit with pointer compression off, rounded up: a header per string, array and object,
// and a slot per element or property.
const HEADER = 16;
const OBJECT_HEADER = 24;
const SLOT = 8;

/**
 * About how much heap a stored task holds, for the memory registry's byte budget (`tasks.max-bytes`):
 * a walk over its JSON shape, allocating nothing. A string counts two bytes per character, the most V8
 * stores one in (Chinese text, which Bailian users write, takes that much), so the estimate errs high
 * for ASCII rather than let the budget be overrun. Linear in the task's size; a task is measured at its
 * writes, which happen at state changes and at a stream's end, not per event.
 */
export function taskBytes(task: Task): number {
  return valueBytes(task);
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return HEADER + 2 * value.length;
  if (typeof value !== 'object' || value === null) return SLOT;
  if (Array.isArray(value)) {
    let bytes = HEADER + SLOT * value.length;
    for (const item of value) bytes += valueBytes(item);
    return bytes;
  }
  let bytes = OBJECT_HEADER;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    // A property costs a slot and a share of its hidden class; the key string is shared by its class.
    bytes += 2 * SLOT + valueBytes((value as Record<string, unknown>)[key]);
  }
  return bytes;
}
