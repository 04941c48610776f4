/**
 * A follow-up turn of iac-code that ends with the text the first turn ended with ("Done."): ListTasks (the record)
 * shows the second turn whole, as GetTask does. iac-code reuses its message ids in every turn, so the turn's last
 * chunk and its final text were taken for the first turn's, already in the history, and left out of the record
 * (status-message-repeated-turns.test.ts has the rule).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { StreamReader, connect, listRequest, payloadRef, sendRequest, textOf } from '../../support/sdk-v1-client.js';

let fake: FakeIacCode;
let gateway: TestGateway;
beforeAll(async () => {
  fake = await startFakeIacCode({
    script: { before: ['Planning the VPC. ', 'Writing it now. '], after: ['Done.'], artifact: { filename: 'main.tf' } },
  });
  gateway = await startTestGateway({ upstream: { url: fake.url } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

it('ListTasks shows a follow-up turn that ends as the first did whole, as GetTask does', async () => {
  const { client } = await connect(gateway.url, 'JSONRPC');
  const first = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
  const ref = payloadRef(await first.expectNext());
  await first.rest();
  await new StreamReader(client.sendMessageStream(sendRequest('now a subnet', ref))).rest();

  const turn = ['Planning the VPC. ', 'Writing it now. ', 'Done.', 'Done.'];
  const expected = ['template: a VPC', ...turn, 'now a subnet', ...turn];
  const listed = await client.listTasks(listRequest({ contextId: ref.contextId }));
  expect(listed.tasks[0]?.history.map(textOf)).toEqual(expected);
  const got = await client.getTask({ tenant: '', id: ref.taskId, historyLength: undefined });
  expect(got.history.map(textOf)).toEqual(expected);
});
