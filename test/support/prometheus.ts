/** Reading a Prometheus text scrape (`GET /metrics`) in tests. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format to samples (comments skipped). */
export function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const pair of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** The sum of the samples of `name` that carry every one of `labels` (others may differ). */
export const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);

/** The samples of the gateway at `url` now. */
export async function scrape(url: string): Promise<Sample[]> {
  return parse(await (await fetch(`${url}/metrics`)).text());
}

/** What `calls` add to `name` at `url`, by labels as value() sums them (other calls meanwhile count too). */
export async function addedBy(url: string, name: string, calls: () => Promise<unknown>): Promise<(labels: Record<string, string>) => number> {
  const before = await scrape(url);
  await calls();
  const after = await scrape(url);
  return (labels) => value(after, name, labels) - value(before, name, labels);
}
