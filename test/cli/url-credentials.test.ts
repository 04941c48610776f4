import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type Run } from '../support/run-cli.js';

/** Credentials an operator may type into an agent URL: a password in the user info, a key in the query. */
const PASSWORD = 'hunter2-password';
const KEY = 's3cr3t-query-key';
const withCredentials = (base: string): string => base.replace('http://', `http://operator:${PASSWORD}@`) + `/?key=${KEY}`;

let refusing: Server;
let refusingUrl: string;
beforeAll(async () => {
  refusing = createServer((_request, response) => response.writeHead(401).end());
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
});
afterAll(() => {
  refusing?.close();
});

/** Nothing the command printed holds the URL's credentials, and its URLs say where they were taken out. */
function expectRedacted(run: Run): void {
  const printed = run.stdout + run.stderr;
  expect(printed).not.toContain(PASSWORD);
  expect(printed).not.toContain(KEY);
  expect(run.stderr).toContain('http://[redacted]@127.0.0.1:');
  expect(run.stderr).toContain('?key=[redacted]');
}

// One CLI at a time: each is a process of its own, and many at once outrun their timeout on a busy host.
describe('URL credentials never reach a CLI message', { timeout: 180_000 }, () => {
  it('an unreachable agent: call (each way of reading the card), card and lint', async () => {
    const url = withCredentials('http://127.0.0.1:1');
    for (const args of [
      ['call', url, 'hi'],
      ['call', url, 'hi', '--protocol', '0.2.5'],
      ['card', url],
      ['lint', url],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(3);
      expectRedacted(run);
    }
  });

  it('an agent that refuses the credentials: card and lint', async () => {
    const url = withCredentials(refusingUrl);
    for (const args of [
      ['card', url],
      ['lint', url],
    ]) {
      const run = await cli(args);
      expectRedacted(run);
      expect(run.code).toBe(4);
    }
  });

  it('a URL the command line got wrong', async () => {
    const run = await cli(['call', `ftp://operator:${PASSWORD}@127.0.0.1/?key=${KEY}`, 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr + run.stdout).not.toContain(PASSWORD);
    expect(run.stderr + run.stdout).not.toContain(KEY);
  });
});
