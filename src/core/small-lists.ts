/**
 * The few items a stream keeps per stream (the tasks it met, the callers watching it), in lists made on their
 * first item. Why: `[]` then `push` gives V8's backing store room for 17 items (about 150 bytes), a literal of one
 * item room for that one (24 bytes); an idle stream held half a dozen such lists of one item, and thousands of idle
 * streams are what the gateway's memory per stream is measured on.
 */

/** `list` with `item` at its end; a new list of just `item` when there was none. */
export function appended<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  list.push(item);
  return list;
}

/** `list` with `item` unless it is there already (a list, not a Set: it holds one item or a few). */
export function addedOnce<T>(list: T[] | undefined, item: T): T[] {
  return list?.includes(item) ? list : appended(list, item);
}
