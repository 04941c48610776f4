/**
 * A real a2a-js 0.2.5 agent behind a gateway and the official a2a-js 1.x client in front of it, for the
 * tests of one `describe`: opened before them, closed after. `restartAgent` brings the agent back on its
 * port with an empty memory, as an agent that keeps its tasks in memory comes back from a restart.
 */
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { startSdkV025Agent, type RunningSdkV025Agent, type SdkV025AgentOptions } from '../../support/sdk-v025-agent.js';
import type { TransportName } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';

export interface V025AgentBehindGateway {
  readonly agent: RunningSdkV025Agent;
  readonly gateway: RunningGateway;
  readonly client: Client;
  restartAgent(): Promise<void>;
}

export function v025AgentBehindGateway(
  transport: TransportName,
  config: Record<string, unknown> = {},
  agentOptions: SdkV025AgentOptions = {},
): V025AgentBehindGateway {
  let agent: RunningSdkV025Agent | undefined;
  let gateway: RunningGateway | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    agent = await startSdkV025Agent(agentOptions);
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', ...config, upstream: { url: agent.url } }), createLogger('silent'));
    client = await connectClient(gateway.url, transport);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });
  return {
    get agent() {
      return agent as RunningSdkV025Agent;
    },
    get gateway() {
      return gateway as RunningGateway;
    },
    get client() {
      return client as Client;
    },
    async restartAgent() {
      const { port } = new URL((agent as RunningSdkV025Agent).url);
      await agent?.close();
      agent = await startSdkV025Agent({ port: Number(port) });
    },
  };
}
