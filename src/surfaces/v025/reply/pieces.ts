/**
 * Where each piece of the reply (the text of one segment: rules.ts) starts in `shown`: how many characters
 * that are not white space come before it, and its index. An agent that says again what it just said, from
 * the start of one of its messages on (the answer streamed after a progress line, sent again whole), is
 * recognised by these starts. Only ever added to, in order, and shared by the states of one turn, like its
 * segment set.
 */
export interface ReplyPieces {
  readonly dense: number[];
  readonly at: number[];
  /** Whether each is an artifact's text (a file's, a report's) rather than a message's words. */
  readonly artifact: boolean[];
}

export const noPieces = (): ReplyPieces => ({ dense: [], at: [], artifact: [] });

export function notePiece(pieces: ReplyPieces, dense: number, at: number, artifact: boolean): void {
  pieces.dense.push(dense);
  pieces.at.push(at);
  pieces.artifact.push(artifact);
}

/** The first piece that starts at `dense` characters or later (piece starts never go back). */
export function firstPieceFrom(pieces: ReplyPieces, dense: number): number {
  let low = 0;
  let high = pieces.dense.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((pieces.dense[middle] ?? 0) < dense) low = middle + 1;
    else high = middle;
  }
  return low;
}
