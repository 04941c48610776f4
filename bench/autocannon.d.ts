/** The part of autocannon 8's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds. */
    timeout?: number;
    /** Counted in `mismatches` when it returns false. */
    verifyBody?: (body: string) => boolean;
  }

  export interface Result {
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    '2xx': number;
    requests: { average: number; mean: number; total: number; sent: number };
    /** Milliseconds, whole-number resolution: not usable for sub-millisecond comparisons. */
    latency: { average: number; mean: number; p50: number; p99: number; max: number };
  }

  export default function autocannon(options: Options): Promise<Result>;
}
