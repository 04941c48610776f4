/**
 * `upstream.protocol: auto` (the default) in front of REAL a2a-js 1.x agents with their 0.3 compatibility on
 * (`legacyCompat`): asked with `A2A-Version: 1.0`, such an agent serves its 1.0 card whatever versions its
 * interfaces declare. One that lists a 1.0 interface is spoken to in 1.0, over that interface's binding; one
 * whose interfaces all declare 0.3 is spoken to in 0.3 (it refuses 1.0 calls with VersionNotSupported), over
 * the binding of its 0.3 card. The official 1.0 client reads the agent's answer, which names the version.
 */
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';
import { answerText, startLegacyCompatAgent, type CompatInterface } from './legacy-compat-agent.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';

const CASES: Array<[string, CompatInterface[], '1.0' | '0.3']> = [
  ['a 1.0 JSON-RPC interface', [{ binding: 'JSONRPC', version: '1.0' }], '1.0'],
  ['a 0.3 JSON-RPC interface', [{ binding: 'JSONRPC', version: '0.3' }], '0.3'],
  ['a 0.3 HTTP+JSON interface', [{ binding: 'HTTP+JSON', version: '0.3' }], '0.3'],
  [
    'a 1.0 and a 0.3 JSON-RPC interface',
    [
      { binding: 'JSONRPC', version: '1.0' },
      { binding: 'JSONRPC', version: '0.3' },
    ],
    '1.0',
  ],
  [
    'a 0.3 JSON-RPC and a 1.0 HTTP+JSON interface',
    [
      { binding: 'JSONRPC', version: '0.3' },
      { binding: 'HTTP+JSON', version: '1.0' },
    ],
    '1.0',
  ],
];

describe.each(CASES)('auto-detecting an a2a-js 1.x agent with 0.3 compat whose card lists %s', (_name, interfaces, spoken) => {
  let agent: RunningTestAgent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startLegacyCompatAgent(interfaces);
    gateway = await startTestGateway({ upstream: { url: agent.url } });
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it(`is spoken to in ${spoken}: the 1.0 client gets the agent's answer`, async () => {
    const result = await client.sendMessage(sendRequest('how many VPCs?'));
    expect('status' in result ? 'a Task' : textOf(result)).toBe(answerText(spoken, 'how many VPCs?'));
  });
});
