/** Small helpers the word tables (words-*.ts) build their sentences with. */

/** A status that passes with time (a 5xx, a 429), so trying again later is worth saying; a 404 or a 400 does not. */
export const passes = (status: string): boolean => status.startsWith('5') || status === '429';

/** `a、b或c`: a list as Chinese and Japanese write it, the last item joined by `last`. */
export const listed = (items: readonly string[], separator: string, last: string): string =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(separator)}${last}${items.at(-1)!}`;

/** Tools named in one line: the first few, then an ellipsis (a long turn may run dozens). */
export const shortList = (items: readonly string[], most = 5): readonly string[] => (items.length > most ? [...items.slice(0, most), '…'] : items);
