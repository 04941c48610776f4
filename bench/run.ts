/**
 * `npm run bench [-- --quick] [--only <scenario>[,<scenario>]] [--profile]`
 *
 * Spawns the fast agent, the bare proxy and the gateway as separate processes on 127.0.0.1, runs the
 * scenarios (each path measured in the same run, alternating round by round), writes
 * bench/results/<date>[-quick][-<only>].json and prints the targets table. The gateway runs from
 * dist/ (built first unless --no-build), as in production. See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuNow, cpuSince } from './lib/cpu.js';
import { FULL, QUICK, type BenchContext, type Scenario, type ScenarioResult } from './lib/context.js';
import { killAll, openFileLimit, REPO_ROOT, spawnChild, type Child } from './lib/processes.js';
import { evaluateTargets, numbersTable, targetTable } from './lib/report.js';
import { newestProfile, profileMarkdown } from './profile-summary.js';
import { runBlocking } from './scenarios/blocking.js';
import { runConcurrency } from './scenarios/concurrency.js';
import { runFacade } from './scenarios/facade.js';
import { runStreaming } from './scenarios/streaming.js';
import { runTranslation } from './scenarios/translation.js';

const SCENARIOS: Record<string, Scenario> = {
  blocking: runBlocking,
  facade: runFacade,
  streaming: runStreaming,
  translation: runTranslation,
  concurrency: runConcurrency,
};
const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

const USAGE = `usage: npm run bench -- [--quick] [--only ${Object.keys(SCENARIOS).join('|')}[,...]] [--profile]
  --quick     short rounds (a smoke run of about a minute)
  --only      run only these scenarios
  --profile   start the gateway with --cpu-prof (profile in bench/results/, summary printed)
  --no-build  run the gateway from the existing dist/ (by default \`npm run build\` runs first)`;

function parseOptions() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      profile: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only =
    values.only
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean) ?? Object.keys(SCENARIOS);
  const unknown = only.filter((name) => !SCENARIOS[name]);
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario ${unknown.join(', ')}\n${USAGE}\n`);
    process.exit(2);
  }
  return { quick: values.quick, only, profile: values.profile, build: !values['no-build'], partial: values.only !== undefined };
}

function machine(loadAverageAtStart: number[]) {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    totalMemMiB: Math.round(os.totalmem() / 2 ** 20),
    openFileLimit: openFileLimit(),
    loadAverageAtStart,
    pinning: 'none: processes share the CPUs with the load generator',
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  const timings = options.quick ? QUICK : FULL;
  const startedAt = new Date();
  const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
  const loadAtStart = loadAverage();
  // A watchdog bounds the whole run: whatever hangs, every child is killed.
  const watchdogMs = options.quick ? 6 * 60_000 : 40 * 60_000;
  setTimeout(() => {
    process.stderr.write(`bench: still running after ${watchdogMs / 60_000} min, aborting\n`);
    killAll();
    process.exit(1);
  }, watchdogMs).unref();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const log = (line: string) => process.stdout.write(`${line}\n`);

  if (options.build) {
    // The gateway runs from dist/ as in production: measure the current source, not a stale build.
    log('building dist/ (npm run build)');
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }

  const children: Child[] = [];
  const scenarios: Record<string, ScenarioResult> = {};
  try {
    const agent = await spawnChild('fast agent', 'bench/fast-agent.ts', []);
    children.push(agent);
    const proxy = await spawnChild('bare proxy', 'bench/bare-proxy.ts', [agent.url]);
    children.push(proxy);
    const profileArgs = options.profile ? ['--cpu-prof', '--cpu-prof-dir', RESULTS_DIR] : [];
    const gateway = await spawnChild('gateway', 'bench/gateway-process.mjs', [JSON.stringify({ upstream: { url: agent.url } })], {
      nodeArgs: profileArgs,
    });
    children.push(gateway);
    log(`agent ${agent.url} (pid ${agent.pid}), proxy ${proxy.url} (pid ${proxy.pid}), gateway ${gateway.url} (pid ${gateway.pid})`);

    const ctx: BenchContext = {
      timings,
      agent,
      proxy,
      gateway,
      log,
      targets: {
        direct: { name: 'direct', origin: agent.url },
        proxy: { name: 'proxy', origin: proxy.url },
        gateway: { name: 'gateway', origin: gateway.url },
      },
    };
    for (const name of options.only) {
      log(`\n## ${name}`);
      const t0 = Date.now();
      const cpuBefore = cpuNow(ctx);
      try {
        scenarios[name] = await SCENARIOS[name]!(ctx);
      } catch (error) {
        scenarios[name] = { status: 'failed', note: error instanceof Error ? error.message : String(error) };
      }
      scenarios[name].cpuMs = cpuSince(ctx, cpuBefore);
      log(`  ${scenarios[name].status} in ${Math.round((Date.now() - t0) / 1000)} s${scenarios[name].note ? `: ${scenarios[name].note}` : ''}`);
    }
  } finally {
    // The gateway first: its clean exit is what writes a --cpu-prof profile.
    for (const child of [...children].reverse()) await child.stop();
    killAll();
  }

  const targets = evaluateTargets(scenarios);
  const suffix = `${options.quick ? '-quick' : ''}${options.partial ? `-${options.only.join('+')}` : ''}${options.profile ? '-profile' : ''}`;
  const file = path.join(RESULTS_DIR, `${startedAt.toISOString().slice(0, 10)}${suffix}.json`);
  const result = {
    startedAt: startedAt.toISOString(),
    durationS: Math.round((Date.now() - startedAt.getTime()) / 1000),
    mode: options.quick ? 'quick' : 'full',
    machine: { ...machine(loadAtStart), loadAverageAtEnd: loadAverage() },
    timings,
    targets,
    scenarios,
  };
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);

  log(`\n## Targets (${result.mode} run, ${result.machine.cpus} CPUs, Node ${process.version}, ${result.durationS} s)\n`);
  log(targetTable(targets));
  log(`\n${numbersTable(scenarios)}`);
  log(`\nraw results: ${path.relative(REPO_ROOT, file)}`);
  if (options.profile) {
    const profile = newestProfile(RESULTS_DIR);
    if (profile) log(`\n${profileMarkdown(profile, 25)}`);
    else log('\nno .cpuprofile was written (the gateway did not exit cleanly)');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    killAll();
    process.exit(1);
  },
);
