/**
 * tasks/get shows a turn's reply as message/stream and message/send showed it, the facade's own words too: in the
 * language the turn picked when it began. A caller's message that says no language ("ok") in a new conversation
 * leaves the turn English; the agent then answers in Chinese, but its answer came after the turn's language was
 * chosen, and a read of the task must not tell the facade's words of that turn in Chinese. Read with the official
 * 0.2.5 client (X-API-KEY) in front of a real a2a-js 1.x agent.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { facadeWords } from '../../../src/surfaces/v025/reply/index.js';
import { collect, sdkParams, sentText, streamedText } from '../../support/facade.js';
import { startKeyedFacade, stopKeyedFacade } from '../../support/keyed-fetch.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer } from './script-player-agent.js';

const { TASK_STATE_WORKING: WORKING, TASK_STATE_FAILED: FAILED, TASK_STATE_CANCELED: CANCELED } = TaskState;
const SAID = '正在检查华东1的配额。';
const EN = facadeWords('en');

let agent: RunningTestAgent;
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startScriptPlayer({
    ok: { steps: [{ status: WORKING, said: SAID }, { status: FAILED }] },
    '👍': { steps: [{ status: WORKING, said: SAID }, { status: CANCELED }] },
  });
  ({ gateway, client } = await startKeyedFacade({ url: agent.url }));
});
afterAll(async () => {
  await stopKeyedFacade(gateway);
  await agent?.close();
});

describe('tasks/get tells the facade words of a turn in the language the turn told them', () => {
  for (const [prompt, line, state] of [
    ['ok', EN.failedSilently, 'failed'],
    ['👍', EN.canceledSilently, 'failed'],
  ] as const) {
    it(`${prompt}: message/stream, message/send and tasks/get of each read the same`, async () => {
      const events = await collect(client.sendMessageStream(sdkParams(prompt)));
      const streamed = streamedText(events);
      expect(streamed).toBe(`${SAID}\n${line}`);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state } });

      const { result: sent }: any = await client.sendMessage(sdkParams(prompt));
      expect(sentText(sent)).toBe(streamed);

      for (const id of [events[0].id, sent.id]) {
        const { result: got }: any = await client.getTask({ id });
        expect(got.status.state).toBe(state);
        expect(sentText(got)).toBe(streamed);
      }
    });
  }
});
