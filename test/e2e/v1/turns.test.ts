/**
 * Running turns through the gateway, with the official a2a-js 1.x client: one turn per context (a
 * second message is refused at once and never reaches the upstream) and SSE relayed as it happens.
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ErrorCode } from '../../../src/model/index.js';
import type { TestGateway } from '../../support/gateway.js';
import {
  StreamReader,
  TRANSPORTS,
  asTask,
  connect,
  outline,
  payloadRef,
  rejectionOf,
  sendRequest,
  streamedArtifactText,
  textOf,
  wireCode,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';

const ACTIVE: Array<TaskState | undefined> = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING];

// Concurrent: each test waits for slow turns on its own context, so they overlap instead of adding up.
describe.concurrent.each(UPSTREAMS)('turns through the gateway in front of the $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    let client: Client;
    beforeAll(async () => {
      ({ client } = await connect(gateway.url, transport));
    });

    it('refuses a second message on a busy context at once, and the running turn completes unharmed', async ({ expect }) => {
      const text = `${upstream.slowPrefix} hold the context`;
      const running = new StreamReader(client.sendMessageStream(sendRequest(text)));
      try {
        const { contextId } = payloadRef(await running.expectNext());

        const blocking = await rejectionOf(client.sendMessage(sendRequest('me too', { contextId })));
        const streaming = await rejectionOf(client.sendMessageStream(sendRequest('me too, streaming', { contextId })));
        for (const error of [blocking, streaming]) {
          expect(error).toMatchObject({ reason: 'INVALID_PARAMS', code: wireCode(transport, ErrorCode.InvalidParams) });
          expect(error.message).toContain(`Context ${contextId} already has a turn in progress`);
        }
        // Refused while the first turn was still running, not queued behind it.
        expect(running.closedAt).toBeUndefined();

        const rest = await running.rest();
        expect(rest.map(outline).at(-1)).toBe(upstream.streamOutline(text, 1).at(-1));
        expect(streamedArtifactText(rest)).toBe(upstream.reply(text, 1));

        // The refused messages never reached the upstream: the next turn is the context's second.
        const next = asTask(await client.sendMessage(sendRequest('after the wait', { contextId })));
        expect(textOf(next.history.at(-1))).toBe(upstream.reply('after the wait', 2));
      } finally {
        await running.close();
      }
    });

    it('a returnImmediately turn keeps its context busy while the agent runs it; then the next turn enters', async ({ expect }) => {
      const text = `${upstream.slowPrefix} answer me later`;
      const later = { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined };
      const running = asTask(await client.sendMessage({ ...sendRequest(text), configuration: later }));
      expect(ACTIVE).toContain(running.status?.state);

      const refused = await rejectionOf(client.sendMessage(sendRequest('too soon', { contextId: running.contextId })));
      expect(refused).toMatchObject({ reason: 'INVALID_PARAMS', code: wireCode(transport, ErrorCode.InvalidParams) });
      expect(refused.message).toContain(`Context ${running.contextId} already has a turn in progress`);

      let task = running;
      for (let i = 0; i < 400 && ACTIVE.includes(task.status?.state); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        task = await client.getTask({ tenant: '', id: running.id, historyLength: undefined });
      }
      expect(task.status?.state).toBe(upstream.endState);
      // The refused message never reached the upstream: the next turn is the context's second.
      const next = asTask(await client.sendMessage(sendRequest('now', { contextId: running.contextId })));
      expect(textOf(next.history.at(-1))).toBe(upstream.reply('now', 2));
    });

    it('relays SSE as it happens: the first event long before the turn ends, the rest as they come', async ({ expect }) => {
      const text = `${upstream.slowPrefix} take your time`;
      const stream = new StreamReader(client.sendMessageStream(sendRequest(text)));
      try {
        const payloads = await stream.rest();
        expect(payloads.map(outline)).toEqual(upstream.streamOutline(text, 1));
        const closedAt = stream.closedAt ?? Number.NaN;
        const [firstAt = Number.NaN] = stream.arrivals;
        // A relay that buffered the turn would deliver everything at its end. Here the stream goes on for
        // (nearly) the whole slow turn after its first event, which is measured from the first event
        // rather than from the request, so a slow start on a loaded machine does not matter.
        const span = closedAt - firstAt;
        expect(span).toBeGreaterThanOrEqual(upstream.slowTurnMinMs * 0.8);
        const midpoint = firstAt + span / 2;
        expect(stream.arrivals.filter((at) => at <= midpoint).length).toBeGreaterThanOrEqual(3);
        expect(stream.arrivals.filter((at) => at > midpoint).length).toBeGreaterThanOrEqual(3);
      } finally {
        await stream.close();
      }
    });
  });
});
