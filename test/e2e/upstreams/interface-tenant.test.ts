/**
 * An agent whose card names a tenant on its interfaces (A2A 1.0 `AgentInterface.tenant`): a real
 * a2a-js 1.x server, over each of its bindings, whose task store is kept per tenant. The gateway
 * serves its own interfaces without a tenant, so its callers cannot send the agent's: the gateway
 * puts it on every call, and a caller's own tenant does not reach another tenant of the agent.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactText, asTask, cancelWhileSubscribed, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_SLOW_PREFIX, sdkReply, startSdkV1Agent, type RunningSdkV1Agent, type SdkV1AgentOptions } from '../../support/sdk-v1-agent.js';

const TENANT = 'acme';

const BINDINGS: Array<[string, SdkV1AgentOptions]> = [
  ['JSON-RPC', {}],
  ['HTTP+JSON', { restOnly: true }],
  ['gRPC', { grpcOnly: true }],
];

describe.each(BINDINGS)('an agent whose %s interface names a tenant', (_binding, bindingOptions) => {
  let agent: RunningSdkV1Agent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startSdkV1Agent({ ...bindingOptions, tenant: TENANT });
    gateway = await startTestGateway({ upstream: { url: agent.url } });
    ({ client } = await connect(gateway.url, 'JSONRPC'));
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("gets the card's tenant on every call, and its tenant-scoped tasks can be read and canceled", async () => {
    const sent = asTask(await client.sendMessage(sendRequest('hello tenant')));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(sent)).toBe(sdkReply('hello tenant', 1).full);
    // The agent keeps tasks per tenant: a cancel sent without the tenant would be TaskNotFound there.
    const { canceled } = await cancelWhileSubscribed(client, `${SDK_SLOW_PREFIX} cancel me`);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(agent.turnTenants).toEqual([TENANT, TENANT]);
  });

  it("replaces a caller's own tenant with the card's", async () => {
    const before = agent.turnTenants.length;
    const sent = asTask(await client.sendMessage({ ...sendRequest('another tenant?'), tenant: 'someone-else' }));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(agent.turnTenants.slice(before)).toEqual([TENANT]);
  });

  it('reaches the agent from the 0.2.5 facade under the same tenant', async () => {
    const before = agent.turnTenants.length;
    const facade = new A2AClient(gateway.url);
    const sent: any = await facade.sendMessage({
      message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text: 'from Bailian' }] },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.result.status.state).toBe('completed');
    // What the Bailian user reads is the agent's whole reply, from the tenant's turn.
    expect(sent.result.artifacts.flatMap((artifact: any) => artifact.parts.map((part: any) => part.text)).join('')).toBe(
      sdkReply('from Bailian', 1).full,
    );
    expect(agent.turnTenants.slice(before)).toEqual([TENANT]);
  });
});
