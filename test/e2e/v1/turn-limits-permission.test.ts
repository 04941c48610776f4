/**
 * A client at its cap on turns in flight (limits.*) can still answer iac-code's permission prompt: the
 * answer joins the paused turn, whose open stream holds the client's slot already, where any other turn
 * of the client is refused. Without this the turn would stall until the agent gives up. The official
 * a2a-js 1.x client over JSON-RPC, in front of the fake iac-code (captured prompt, answer and resume).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type TaskStatusUpdateEvent } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, connect, outline, permissionAnswer, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-turn-limits-'));
let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode({
    script: {
      before: ['Drafting main.tf.'],
      after: ['Wrote main.tf'],
      artifact: { filename: 'main.tf', content: Buffer.from('# vpc\n'), dir },
      permission: true,
    },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url, 'artifact-dir': dir }, limits: { 'turns-in-flight-per-client': 1 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a permission answer at the cap', () => {
  it('joins the paused turn while another turn of the client is refused; the turn then ends and frees the slot', async () => {
    const { client } = await connect(gateway.url, 'JSONRPC');
    const turn = new StreamReader(client.sendMessageStream(sendRequest('Create a VPC')));
    let prompt: TaskStatusUpdateEvent | undefined;
    while (!prompt) {
      const payload = await turn.expectNext();
      if (payload.$case === 'statusUpdate' && payload.value.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) prompt = payload.value;
    }
    const input = (prompt.metadata as { iac_code: { input: Record<string, string> } }).iac_code.input;

    expect((await rejectionOf(client.sendMessage(sendRequest('another conversation')))).code).toBe(GatewayErrorCode.TooManyTurnsInFlight);
    const answered = new StreamReader(client.sendMessageStream(permissionAnswer(input, 'allow_once', { contextId: input.contextId })));
    expect(outline(await answered.expectNext())).toBe('task'); // the task, as a 1.0 stream opens
    expect(outline(await answered.expectNext())).toBe(`statusUpdate:${TaskState.TASK_STATE_WORKING}`); // the tool runs
    await answered.close();

    const rest = (await turn.rest()).map(outline);
    expect(rest.at(-1)).toBe(`statusUpdate:${TaskState.TASK_STATE_INPUT_REQUIRED}`);
    // The script pauses every turn for permission, so the next one is streamed and left at its first event.
    const next = new StreamReader(client.sendMessageStream(sendRequest('a new conversation, once the turn is over')));
    expect((await next.expectNext()).$case).toBe('task');
    await next.close();
  });
});
