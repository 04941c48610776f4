/**
 * The card URL Bailian is given (`…/.well-known/agent.json`) typed with the facade's key, on a gateway whose 1.0
 * side takes credentials of its own: `call` and `card` read the 1.0 card first, which refuses the Bailian key. Told
 * only "give it credentials with --api-key", the operator who just gave it has nowhere to go; the words name
 * --protocol 0.2.5, which reads the card that was typed. A base URL typed is told as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../src/app.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { cli } from '../support/run-cli.js';

const BAILIAN_KEY = 'bailian-key-0123456789abcdef';
const CREDENTIALS = 'give it credentials with --token, --api-key or --header';
const TYPED_V025 = 'or use the 0.2.5 card typed (--protocol 0.2.5)';

let gateway: RunningGateway;
beforeAll(async () => {
  const config = defaultConfig({ port: 0, auth: { token: 'v1-token-0123456789abcdef' }, bailian: { 'api-key': BAILIAN_KEY } });
  gateway = await startGateway(config, createLogger('silent'));
});
afterAll(async () => {
  await gateway?.close();
});

describe.concurrent('the 0.2.5 card URL typed, the 1.0 card refusing the key given', { timeout: 60_000 }, () => {
  it('card: exit 4, naming --protocol 0.2.5, which prints the card typed', async () => {
    const typed = `${gateway.url}/.well-known/agent.json`;
    const run = await cli(['card', typed, '--api-key', BAILIAN_KEY]);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(
      `a2a-bridge: the agent refused the credentials for its card at ${gateway.url}/.well-known/agent-card.json (HTTP 401): ${CREDENTIALS}, ${TYPED_V025}\n`,
    );
    const base = await cli(['card', gateway.url, '--api-key', BAILIAN_KEY]);
    expect(base.stderr).toBe(
      `a2a-bridge: the agent refused the credentials for its card at ${gateway.url}/.well-known/agent-card.json (HTTP 401): ${CREDENTIALS}\n`,
    );
    // No key given: the card asks for credentials, and the 0.2.5 card typed is still named.
    const none = await cli(['card', typed]);
    expect(none.code).toBe(4);
    expect(none.stderr).toBe(
      `a2a-bridge: the agent's card at ${gateway.url}/.well-known/agent-card.json needs credentials (HTTP 401): give them with --token, --api-key or --header, ${TYPED_V025}\n`,
    );
    const asked = await cli(['card', typed, '--api-key', BAILIAN_KEY, '--protocol', '0.2.5']);
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout).protocolVersion).toBe('0.2.5');
  });

  it('call: exit 4, naming --protocol 0.2.5, which makes the call', async () => {
    const typed = `${gateway.url}/.well-known/agent.json`;
    const run = await cli(['call', typed, 'hi', '--api-key', BAILIAN_KEY]);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(`a2a-bridge: the agent refused the call (HTTP 401): ${CREDENTIALS}, ${TYPED_V025}\n`);
    const base = await cli(['call', gateway.url, 'hi', '--api-key', BAILIAN_KEY]);
    expect(base.stderr).toBe(`a2a-bridge: the agent refused the call (HTTP 401): ${CREDENTIALS}\n`);
    const none = await cli(['call', typed, 'hi']);
    expect(none.stderr).toBe(
      `a2a-bridge: the agent needs credentials for the call (HTTP 401): give them with --token, --api-key or --header, ${TYPED_V025}\n`,
    );
    const asked = await cli(['call', typed, 'hi', '--api-key', BAILIAN_KEY, '--protocol', '0.2.5']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toBe('Echo (turn 1): hi\n');
  });
});
