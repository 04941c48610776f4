/** `log-format: pretty` colours its lines only on a terminal: into a pipe or a file it writes plain text. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { fixtureNodeArgs } from '../support/run-cli.js';

const SCRIPT = fileURLToPath(new URL('./fixtures/pretty-log.ts', import.meta.url));
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPE = /\u001b\[/;

it('pretty lines written to a pipe carry no ANSI colour codes', async () => {
  // FORCE_COLOR would make colorette colour anything; the test is about what the gateway decides.
  const env = { ...process.env, FORCE_COLOR: undefined, NO_COLOR: undefined };
  const child = spawn(process.execPath, fixtureNodeArgs(SCRIPT), { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect(code).toBe(0);
  expect(out).toMatch(/WARN.*written to a pipe/);
  expect(out).not.toMatch(ANSI_ESCAPE);
}, 20_000);
