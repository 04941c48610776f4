import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, type Client } from 'a2a-sdk-1/client';
import { demoReply, startDemoAgent, type RunningDemoAgent } from '../../src/demo-agent/index.js';

/** The official A2A 1.0 JS SDK client against the demo agent: proof it is a valid 1.0 agent. */
let agent: RunningDemoAgent;
let client: Client;

beforeAll(async () => {
  agent = await startDemoAgent({ chunkDelayMs: 0 });
  client = await new ClientFactory().createFromUrl(agent.url);
});
afterAll(async () => {
  await agent.close();
});

function userMessage(text: string, contextId = ''): Parameters<Client['sendMessage']>[0]['message'] {
  return {
    messageId: `sdk-${Math.random().toString(36).slice(2)}`,
    contextId,
    taskId: '',
    role: 1, // Role.ROLE_USER
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const request = (message: ReturnType<typeof userMessage>): Parameters<Client['sendMessage']>[0] => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

describe('official a2a-js 1.0 client', () => {
  it('resolves the card and picks the JSON-RPC interface', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('a2a-bridge-demo');
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sendMessage returns the task at INPUT_REQUIRED with the echo', async () => {
    const result = await client.sendMessage(request(userMessage('sdk hello')));
    expect('status' in result).toBe(true);
    if (!('status' in result)) return;
    expect(result.status?.state).toBe(6); // TASK_STATE_INPUT_REQUIRED
    const last = result.history.at(-1)?.parts[0]?.content;
    expect(last).toEqual({ $case: 'text', value: demoReply('sdk hello', 1).full });
    expect(result.artifacts[0]?.name).toBe('reply.txt');

    const fetched = await client.getTask({ tenant: '', id: result.id, historyLength: 1 });
    expect(fetched.history).toHaveLength(1);
  });

  it('sendMessageStream yields the whole turn and a follow-up continues the context', async () => {
    const cases: string[] = [];
    let contextId = '';
    let finalText = '';
    for await (const event of client.sendMessageStream(request(userMessage('stream me')))) {
      const payload = event.payload;
      if (!payload) continue;
      cases.push(payload.$case);
      if (payload.$case === 'task') contextId = payload.value.contextId;
      if (payload.$case === 'statusUpdate' && payload.value.metadata?.iac_code?.assistantFinal) {
        const part = payload.value.status?.message?.parts[0]?.content;
        finalText = part?.$case === 'text' ? part.value : '';
      }
    }
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    expect(cases.at(-1)).toBe('statusUpdate');
    expect(finalText).toBe(demoReply('stream me', 1).full);

    const followUp = await client.sendMessage(request(userMessage('more', contextId)));
    if (!('status' in followUp)) throw new Error('expected a task');
    expect(followUp.contextId).toBe(contextId);
    const text = followUp.history.at(-1)?.parts[0]?.content;
    expect(text).toEqual({ $case: 'text', value: demoReply('more', 2).full });

    const listed = await client.listTasks({
      tenant: '',
      contextId,
      status: 0,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks).toHaveLength(2);
  });
});
