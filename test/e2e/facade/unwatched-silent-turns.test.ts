/**
 * iac-code accepts a turn and says nothing within the gateway's bound (message/send's `upstream.request-timeout-ms`,
 * message/stream's `upstream.first-event-timeout-ms`), then goes on with it. What the user reads must say what
 * the facade does, the same on both methods: a follow-up (its task known) is left running and noted, so its user
 * reads that the agent goes on and their next message shows the turn's rest; a new task, whose id no event named,
 * is followed until its first event (unwatched-new-task-before-first-event.test.ts), its user told the agent has not
 * started yet; one that never says anything is let go with nothing noted. A follow-up the agent refuses before its first event
 * is not running: nothing is noted, and the next message is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { readsOrRefusal, rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const SILENT = '[fault:hang-mid-stream after=0]';
const LEFT_RUNNING = 'but it is still working on your request. Send any message in this conversation';
const REST_WORDS = 'Here is the rest of the reply to your previous message';
/** How the reply opens when its user read none of the turn (iac-code said nothing before the bound). */
const WHOLE_WORDS = 'Here is the reply to your previous message';
/** A new task's words at the bound: no event named it yet, so the call is followed on (unwatched-turns.ts). */
const NOT_STARTED = 'The agent has not started answering yet';
const BOUNDS = { 'first-event-timeout-ms': 400, 'request-timeout-ms': 400 };

describe('a turn iac-code accepts and stays silent on past the bound, on message/send and message/stream', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startFacadeGateway({ upstream: { url: fake.url, ...BOUNDS } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const sent = (): number => fake.rpcRequests('SendStreamingMessage').length;
  const upstreamState = (taskId: string): unknown => (fake.tasks.get(taskId)?.status as { state?: string } | undefined)?.state;

  for (const way of ['send', 'stream'] as const) {
    it(`${way}, a follow-up: told the agent goes on, and the next message shows the rest, not sent`, async () => {
      const contextId = `ctx-silent-follow-up-${way}`;
      const opened = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId }) });
      const taskId: string = opened.body.result.id;
      expect(sentText(opened.body.result)).toContain('Done.');
      const before = sent();
      const told = await readsOrRefusal(gateway.url, way, userMessage({ text: `${SILENT} and a vSwitch`, contextId }));
      expect(told).toContain(LEFT_RUNNING);
      expect(told).not.toContain(GATEWAY_FAILURES.upstreamTimedOut);
      await waitUntil(async () => upstreamState(taskId) === 'TASK_STATE_INPUT_REQUIRED');
      const next = await readsOrRefusal(gateway.url, way, userMessage({ text: 'continue', contextId }));
      expect(next).toContain(WHOLE_WORDS);
      expect(next).toContain('Done.');
      expect(sent()).toBe(before + 1);
    });

    it(`${way}, a follow-up the agent refuses before its first event: nothing left running, the next message is sent`, async () => {
      const contextId = `ctx-refused-follow-up-${way}`;
      await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'make a vpc', contextId }) });
      const before = sent();
      const told = await readsOrRefusal(gateway.url, way, userMessage({ text: '[fault:internal-error] and a vSwitch', contextId }));
      expect(told).not.toContain(LEFT_RUNNING);
      const next = await readsOrRefusal(gateway.url, way, userMessage({ text: 'continue', contextId }));
      expect(next).not.toContain(REST_WORDS);
      expect(next).not.toContain(WHOLE_WORDS);
      expect(next).toContain('Done.');
      expect(sent()).toBe(before + 2);
    });

    it(`${way}, a new task: told the agent has not started yet, and followed until it gives up on a first event that never comes`, async () => {
      // Its task has no id until its first event (unwatched-new-task-before-first-event.test.ts): the call is read on for
      // as long again as the longer bound, then let go with nothing to note, and the next message is sent.
      const contextId = `ctx-silent-new-${way}`;
      const told = await readsOrRefusal(gateway.url, way, userMessage({ text: `${SILENT} make a vpc`, contextId }));
      expect(told).toContain(NOT_STARTED);
      expect(told).not.toContain(GATEWAY_FAILURES.upstreamTimedOut);
      const before = sent();
      const next = await readsOrRefusal(gateway.url, way, userMessage({ text: 'continue', contextId }));
      expect(next).not.toContain(WHOLE_WORDS);
      expect(next).toContain('Done.');
      expect(sent()).toBe(before + 1);
    });
  }
});
