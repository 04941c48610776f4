/**
 * The official a2a-js 1.x client through the gateway to a 0.3 HTTP+JSON agent that reads `historyLength` as
 * a2a-js 0.3 does (fake-v03-rest.ts: no history when the length is absent, all of it for 0): a 1.0 caller still
 * gets the history A2A 1.0 means (unset: all, 0: none, n: the last n), from GetTask and in the Task a
 * subscription opens with, as in front of a 0.2.5 agent (v025-agent.test.ts).
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { startFakeV03Rest, type FakeV03Rest } from '../../support/fake-v03-rest.js';
import { asTask, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { StreamReader, connectClient, outline } from './sdk1-client.js';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'history over %s from a 0.3 HTTP+JSON agent that reads historyLength as a2a-js 0.3',
  (transport: TransportName) => {
    let agent: FakeV03Rest;
    let gateway: RunningGateway;
    let client: Client;

    beforeAll(async () => {
      agent = await startFakeV03Rest();
      gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
      client = await connectClient(gateway.url, transport);
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    const historyOf = async (id: string, historyLength: number | undefined): Promise<string[]> =>
      (await client.getTask({ tenant: '', id, historyLength })).history.map(textOf);

    it('GetTask: unset is the whole history, 0 none, n the last n', async () => {
      const sent = asTask(await client.sendMessage(sendRequest('hello')));
      expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(await historyOf(sent.id, undefined)).toEqual(['hello', 'echo: hello']);
      expect(await historyOf(sent.id, 0)).toEqual([]);
      expect(await historyOf(sent.id, 1)).toEqual(['echo: hello']);
    });

    it('SubscribeToTask opens with the Task as it stands, its history included', async () => {
      const request = sendRequest('take your time');
      request.configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
      const running = asTask(await client.sendMessage(request));
      const payloads = await new StreamReader(client.resubscribeTask({ tenant: '', id: running.id })).rest();
      const opening = payloads[0]?.$case === 'task' ? payloads[0].value : undefined;
      expect(opening?.history.map(textOf)).toEqual(['take your time']);
    });
  },
);

describe.each(['POST', 'GET'] as const)('SubscribeToTask to a 0.3 HTTP+JSON agent serving tasks/{id}:subscribe on %s only', (method) => {
  let agent: FakeV03Rest;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startFakeV03Rest({ subscribeOn: method });
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
    client = await connectClient(gateway.url, 'JSONRPC');
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('follows a running task to its end, each time', async () => {
    for (const text of ['first', 'second']) {
      const request = sendRequest(text);
      request.configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
      const running = asTask(await client.sendMessage(request));
      const payloads = await new StreamReader(client.resubscribeTask({ tenant: '', id: running.id })).rest();
      expect(payloads.map(outline)).toEqual(['task', 'artifactUpdate', 'statusUpdate:TASK_STATE_COMPLETED']);
    }
    const subscriptions = agent.routed(':subscribe').map((request) => request.method);
    expect(subscriptions.filter((used) => used === method)).toHaveLength(2);
  });
});
