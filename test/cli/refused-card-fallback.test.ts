/**
 * A wrong token for an agent whose 1.0 side takes credentials and whose 0.2.5 side is open (an
 * a2a-bridge with gateway auth and no `bailian.api-key`): `call` and `card` say the credentials were
 * refused (exit 4), and do not fall back to the open 0.2.5 card and its facade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { cli } from '../support/run-cli.js';

let gateway: RunningGateway;
beforeAll(async () => {
  gateway = await startGateway(defaultConfig({ port: 0, auth: { tokens: [{ name: 'alice', token: 'ALICETOKEN_SECRET' }] } }), createLogger('silent'));
});
afterAll(async () => {
  await gateway?.close();
});

describe.concurrent('a wrong token in front of an open facade', { timeout: 60_000 }, () => {
  it('call: exit 4, nothing sent to the facade', async () => {
    for (const token of ['WRONG', undefined]) {
      const run = await cli(['call', gateway.url, 'hi', ...(token ? ['--token', token] : [])]);
      expect(run.code).toBe(4);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        token
          ? 'a2a-bridge: the agent refused the call (HTTP 401): give it credentials with --token, --api-key or --header\n'
          : 'a2a-bridge: the agent needs credentials for the call (HTTP 401): give them with --token, --api-key or --header\n',
      );
    }
    const right = await cli(['call', gateway.url, 'hi', '--token', 'ALICETOKEN_SECRET']);
    expect(right.code).toBe(0);
    expect(right.stdout).toBe('Echo (turn 1): hi\n');
    // Asked for, the open facade still answers.
    expect((await cli(['call', gateway.url, 'hi', '--protocol', '0.2.5'])).code).toBe(0);
  });

  it('card: exit 4 naming the 1.0 card, not the 0.2.5 card printed', async () => {
    const run = await cli(['card', gateway.url, '--token', 'WRONG']);
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `a2a-bridge: the agent refused the credentials for its card at ${gateway.url}/.well-known/agent-card.json (HTTP 401): give it credentials with --token, --api-key or --header\n`,
    );
    const right = await cli(['card', gateway.url, '--token', 'ALICETOKEN_SECRET']);
    expect(right.code).toBe(0);
    expect(right.stderr).toContain(`A2A 1.0 card at ${gateway.url}/.well-known/agent-card.json`);
    const facade = await cli(['card', gateway.url, '--protocol', '0.2.5']);
    expect(facade.code).toBe(0);
    expect(JSON.parse(facade.stdout).protocolVersion).toBe('0.2.5');
  });
});
