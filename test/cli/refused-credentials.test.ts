import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/run-cli.js';
import { inProcess } from './in-process.js';

/** Agents that turn every request away for its credentials: one with 401, one with 403. */
const refusing: Record<number, { server: Server; url: string }> = {};
beforeAll(async () => {
  for (const status of [401, 403]) {
    const server = createServer((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    refusing[status] = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }
});
afterAll(() => {
  for (const { server } of Object.values(refusing)) server.close();
});

/**
 * The cases of one command, one after another (the in-process runs share stderr). The first runs as a
 * CLI process, so the exit code and the whole of stderr are seen as a terminal sees them; the others
 * vary what the command does with the same process around it.
 */
async function inTurn<T>(
  items: readonly T[],
  args: (item: T) => string[],
  check: (item: T, run: { code: number | null; stderr: string }) => void,
): Promise<void> {
  for (const [n, item] of items.entries()) check(item, n === 0 ? await cli(args(item)) : await inProcess(args(item)));
}

// Exit code 4 means the credentials were refused (src/cli/exit-codes.ts, the README), for every command that meets one.
describe('refused credentials (HTTP 401/403): exit 4 and which flags send credentials, from every agent command', { timeout: 180_000 }, () => {
  // With no credentials given, none were refused: the words say the agent asks for them.
  it('card, with and without --protocol, with and without credentials', async () => {
    const cases = [
      { status: 401, args: [], card: 'agent-card.json' },
      { status: 401, args: ['--protocol', '1.0'], card: 'agent-card.json' },
      { status: 401, args: ['--protocol', '0.2.5'], card: 'agent.json' },
      { status: 403, args: [], card: 'agent-card.json' },
      { status: 401, args: ['--token', 'wrong'], card: 'agent-card.json', sent: true },
      { status: 403, args: ['--protocol', '0.2.5', '--api-key', 'wrong'], card: 'agent.json', sent: true },
      { status: 401, args: ['--header', 'X-Tenant: a'], card: 'agent-card.json', sent: true },
    ];
    await inTurn(
      cases,
      ({ status, args }) => ['card', refusing[status]!.url, ...args],
      ({ status, card, sent }, run) => {
        const where = `${refusing[status]!.url}/.well-known/${card}`;
        expect(run.code).toBe(4);
        expect(run.stderr).toBe(
          sent
            ? `a2a-bridge: the agent refused the credentials for its card at ${where} (HTTP ${status}): give it credentials with --token, --api-key or --header\n`
            : `a2a-bridge: the agent's card at ${where} needs credentials (HTTP ${status}): give them with --token, --api-key or --header\n`,
        );
      },
    );
  });

  it('call, while finding the protocol and with each --protocol, with and without credentials', async () => {
    const cases = [
      { status: 401, args: [] },
      { status: 401, args: ['--protocol', '1.0'] },
      { status: 401, args: ['--protocol', '0.3'] },
      { status: 401, args: ['--protocol', '0.2.5'] },
      { status: 403, args: [] },
      { status: 401, args: ['--token', 'wrong'], sent: true },
      { status: 403, args: ['--protocol', '0.2.5', '--api-key', 'wrong'], sent: true },
      { status: 401, args: ['--protocol', '1.0', '--header', 'X-Tenant: a'], sent: true },
    ];
    await inTurn(
      cases,
      ({ status, args }) => ['call', refusing[status]!.url, 'hi', ...args],
      ({ status, sent }, run) => {
        expect(run.code).toBe(4);
        expect(run.stderr).toBe(
          sent
            ? `a2a-bridge: the agent refused the call (HTTP ${status}): give it credentials with --token, --api-key or --header\n`
            : `a2a-bridge: the agent needs credentials for the call (HTTP ${status}): give them with --token, --api-key or --header\n`,
        );
      },
    );
  });

  it.each([true, false])('lint, the card refused, credentials sent: %s', async (sent) => {
    await inTurn(
      [401, 403],
      (status) => ['lint', refusing[status]!.url, ...(sent ? ['--api-key', 'not-the-key'] : [])],
      (status, run) => {
        const where = `${refusing[status]!.url}/\\.well-known/agent\\.json`;
        expect(run.code).toBe(4);
        expect(run.stderr).toMatch(
          new RegExp(
            sent
              ? `^a2a-bridge: the agent refused the credentials for its card at ${where} \\(HTTP ${status}\\): pass the key with --api-key`
              : `^a2a-bridge: the agent's card at ${where} needs credentials \\(HTTP ${status}\\): pass the key with --api-key`,
          ),
        );
      },
    );
  });
});
