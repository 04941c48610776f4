/**
 * The facade's fetches of URL images Bailian sends, counted process-wide by outcome, like Redis errors
 * (redis-errors.ts): the facade only reports here, and the metrics read the counts at scrape time.
 * `fetched`: the bytes arrived (whether they make a part is the card's and the bytes' decision);
 * `refused`: the URL, its address, its answer or the time bound said no; `busy`: no slot was free.
 */
export type ImageFetchOutcome = 'fetched' | 'refused' | 'busy';

const counts = new Map<ImageFetchOutcome, number>();

export function noteImageFetch(outcome: ImageFetchOutcome): void {
  counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
}

export const imageFetchCounts = (): ReadonlyMap<ImageFetchOutcome, number> => counts;
