/**
 * Running turns through the gateway, with the official a2a-js 1.x client: one turn per context (a
 * second message is refused at once and never reaches the upstream) and SSE relayed as it happens.
 */
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
