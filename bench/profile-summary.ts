/**
 * Where a .cpuprofile spent its time: self time aggregated by function (name + file:line) and by
 * source (repo file, npm package, or node internals), from the sample timeline.
 *
 * Usage: node --import tsx bench/profile-summary.ts [file.cpuprofile] [top=25]
 * Without a file: the newest .cpuprofile in bench/results/.
 *
 * The third table charges each sample to its OWNER: the innermost frame on its stack that is the
 * gateway's own code or a library it calls (Hono, zod, prom-client, pino, …), so the native work a
 * function starts (JSON.parse, a write, an allocation) counts for that function's module. Samples
 * with no such frame (socket callbacks inside node:http or undici, GC, the VM) keep their own source.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = path.join(ROOT, 'bench', 'results');

/** A short, stable name for where code lives. */
export function sourceOf(url: string): string {
  if (url === '') return '(native/VM)';
  if (url.startsWith('node:')) return url;
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const modules = file.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = file.slice(modules + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return file.startsWith(ROOT) ? file.slice(ROOT.length) : file;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  gcMs: number;
  byFunction: Array<{ name: string; selfMs: number; percent: number }>;
  bySource: Array<{ name: string; selfMs: number; percent: number }>;
  /** Time by the module that owns it (see the header). */
  byOwner: Array<{ name: string; selfMs: number; percent: number }>;
}

/** Code that makes work happen rather than doing it for someone else: the repo and the libraries it drives. */
const NOT_OWNERS = /^(\(native\/VM\)|node:|undici$)/;

function ownerOf(node: ProfileNode | undefined, parents: Map<number, ProfileNode>): string | undefined {
  for (let at = node; at; at = parents.get(at.id)) {
    const source = sourceOf(at.callFrame.url);
    if (!NOT_OWNERS.test(source)) return source;
  }
  return undefined;
}

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // A profile taken through node:inspector (bench/diag-hooks.mjs) ends with the profiler stopping
  // itself: those samples are the measurement, not the process, and are left out.
  const profilerOwn = new Set<number>();
  const markOwn = (node: ProfileNode | undefined) => {
    if (!node || profilerOwn.has(node.id)) return;
    profilerOwn.add(node.id);
    for (const child of node.children ?? []) markOwn(byId.get(child));
  };
  for (const node of profile.nodes) if (node.callFrame.url === 'node:inspector') markOwn(node);
  // timeDeltas[i] is the time before sample i; it is charged to the node sampled at i.
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  const parents = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const functions = new Map<string, number>();
  const sources = new Map<string, number>();
  const owners = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  let gcUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || profilerOwn.has(id)) continue;
    totalUs += us;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    if (frame.functionName === '(root)') continue;
    if (frame.functionName === '(garbage collector)') gcUs += us;
    const source = sourceOf(frame.url);
    // tsx-compiled files report line 0 for everything: a line is only shown when it means something.
    const name = `${frame.functionName || '(anonymous)'} ${source}${frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    sources.set(source, (sources.get(source) ?? 0) + us);
    const owner = frame.functionName === '(garbage collector)' ? '(garbage collector)' : (ownerOf(byId.get(id), parents) ?? source);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  const busyUs = totalUs - idleUs;
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 10) / 100, percent: Math.round((us / busyUs) * 1000) / 10 }));
  return {
    totalMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    gcMs: Math.round(gcUs / 1000),
    byFunction: rank(functions),
    bySource: rank(sources),
    byOwner: rank(owners),
  };
}

/** Main-thread profiles are CPU.<date>.<time>.<pid>.0.<seq>; tsx's loader thread writes its own (.1.). */
const MAIN_THREAD = /\.\d+\.0\.\d+\.cpuprofile$/;

/** The newest main-thread profile in `dir` (any profile when none is marked main-thread). */
export function newestProfile(dir = RESULTS): string | undefined {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(dir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return files.find((file) => MAIN_THREAD.test(file)) ?? files[0];
}

export function profileMarkdown(file: string, top = 25): string {
  const summary = summarizeProfile(file, top);
  const table = (title: string, rows: ProfileSummary['byFunction']) =>
    [
      `| ${title} | self ms | % of busy |`,
      '|---|---|---|',
      ...rows.map((r) => `| ${r.name.replace(/\|/g, '\\|')} | ${r.selfMs} | ${r.percent} |`),
    ].join('\n');
  return [
    `Profile ${path.relative(ROOT, file)}: ${summary.totalMs} ms sampled, ${summary.idleMs} ms idle, ${summary.gcMs} ms GC`,
    '',
    table('Source (self time)', summary.bySource.slice(0, 12)),
    '',
    table('Owner (time of the work each module starts)', summary.byOwner),
    '',
    table('Function (self time)', summary.byFunction),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const file = process.argv[2] ?? newestProfile();
  if (!file) {
    process.stderr.write('no .cpuprofile given and none in bench/results/\n');
    process.exit(2);
  }
  process.stdout.write(`${profileMarkdown(file, Number(process.argv[3] ?? 25))}\n`);
}
