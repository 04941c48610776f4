/**
 * An agent's failure reason that names its side of the network (`connect ECONNREFUSED 10.0.3.4:5432`) reaches
 * no caller with the address: a Bailian user (message/send, message/stream) and a 1.0 caller (the official
 * a2a-js client) read the reason with a placeholder where the private address was, the rest of it as the
 * agent said it. Both ways an agent says why: a turn it fails (iac-code's error event, a FAILED status) and
 * an error it answers the call with.
 */
import { TaskState, type TaskStatus } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startErrorInfoAgent, type ErrorInfoAgent } from '../../support/error-info-agent.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { asTask, collect, connect, rejectionOf, sendRequest, textOf, type Payload } from '../../support/sdk-v1-client.js';

const REASON = 'ProviderError: connect ECONNREFUSED 10.0.3.4:5432; cache dial tcp [fd00::1]:6379: i/o timeout; metadata 169.254.169.254 unreachable';
const SCRUBBED =
  'ProviderError: connect ECONNREFUSED [internal address]; cache dial tcp [internal address]: i/o timeout; metadata [internal address] unreachable';
const ADDRESSES = ['10.0.3.4', 'fd00::1', '169.254.169.254'];

function expectScrubbed(text: string | undefined): void {
  expect(text).toContain(SCRUBBED);
  for (const address of ADDRESSES) expect(text).not.toContain(address);
}

/** The status the last status update of a 1.0 stream reports. */
const lastStatus = (payloads: Payload[]): TaskStatus | undefined =>
  payloads.flatMap((payload) => (payload.$case === 'statusUpdate' ? [payload.value.status] : [])).at(-1);

describe("an agent's failed turn whose reason names private addresses", () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: ['Checking ', 'the database.'], after: [], artifact: { filename: 'main.tf' }, error: { text: REASON } },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('reads to a Bailian user without them, on message/send and message/stream', async () => {
    const text = 'Please check my database template';
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text }) });
    expect(sent.body.result.status.state).toBe('failed');
    expectScrubbed(sentText(sent.body.result));
    const streamed = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text }) })).rest());
    expect(streamed.at(-1).status.state).toBe('failed');
    expectScrubbed(streamedText(streamed));
  });

  it('reads to a 1.0 caller without them, in a blocking call and a stream', async () => {
    const v1 = await connect(gateway.url, 'JSONRPC');
    const task = asTask(await v1.client.sendMessage(sendRequest('Please check my database template')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expectScrubbed(textOf(task.status?.message));
    const status = lastStatus(await collect(v1.client.sendMessageStream(sendRequest('Please check my database template'))));
    expect(status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expectScrubbed(textOf(status?.message));
  });
});

describe('an agent that answers a call with an error naming private addresses', () => {
  let agent: ErrorInfoAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startErrorInfoAgent('JSONRPC');
    agent.fail({ code: -32603, httpStatus: 500, grpcStatus: 'INTERNAL', message: REASON, infos: [] });
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('reads to a Bailian user and a 1.0 caller without them', async () => {
    const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'Please check my database template' }) });
    expectScrubbed(sent.body.error?.message ?? sentText(sent.body.result));
    const v1 = await connect(gateway.url, 'JSONRPC');
    expectScrubbed((await rejectionOf(v1.client.sendMessage(sendRequest('Please check my database template')))).message);
  });
});
