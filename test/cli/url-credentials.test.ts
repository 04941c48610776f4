import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type Run } from '../support/run-cli.js';
import { inProcess } from './in-process.js';

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

/**
 * The first case of each kind runs as a CLI process (`cli`): all it prints, as a terminal sees it; the three
 * processes at once. The others run the command in this process (`inProcess`), without the second or more
 * of CPU each process spends starting.
 */
describe.concurrent('URL credentials never reach a CLI message', () => {
  it('an unreachable agent: call (each way of reading the card), card and lint', async () => {
    const url = withCredentials('http://127.0.0.1:1');
    const cases = [
      ['call', url, 'hi'],
      ['call', url, 'hi', '--protocol', '0.2.5'],
      ['card', url],
      ['lint', url],
    ];
    for (const [n, args] of cases.entries()) {
      const run = await (n === 0 ? cli : inProcess)(args);
      expect(run.code).toBe(3);
      expectRedacted(run);
    }
  });

  it('an agent that refuses the credentials: card and lint', async () => {
    const url = withCredentials(refusingUrl);
    const cases = [
      ['card', url],
      ['lint', url],
    ];
    for (const [n, args] of cases.entries()) {
      const run = await (n === 0 ? cli : inProcess)(args);
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
