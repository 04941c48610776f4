/**
 * The state Bailian is shown at the end of an iac-code turn (docs/bailian.md, "States Bailian understands"). iac-code
 * ends every turn INPUT_REQUIRED, which the `bailian` profile shows as `completed`: an answer, not a question. A turn
 * that waits on its permission prompt is a question, whose answer only iac-code can take: it ends `input-required`
 * (the stream's last frame `final: true`), in message/send, message/stream and tasks/get alike, so that Bailian routes
 * its user's next message ("同意") back to this agent, not to its own model or another agent of the app. An operator
 * who maps INPUT_REQUIRED themselves (`bailian.mappings`) is taken at their word for every turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_PROMPT } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const BEFORE = ['Drafting ', 'main.tf.'];
const AFTER = ['Wrote main.tf ✓'];
const QUESTION = `${PERMISSION_PROMPT}\nReply "Allow once" or "Deny".`;
const SCRIPT = { before: BEFORE, after: AFTER, artifact: { filename: 'main.tf' } };
/** What the user reads of the turn that allowed the tool: the file it wrote, then iac-code's last words. */
const ALLOWED = `main.tf (text/plain, 14 bytes)\n${AFTER.join('')}`;
/** The same, to a user who answered in Chinese ("同意"): the facade's words, the file's size, in the turn's language. */
const ALLOWED_IN_CHINESE = `main.tf (text/plain, 14 字节)\n${AFTER.join('')}`;
const INPUT_REQUIRED_AS_COMPLETED = { bailian: { mappings: { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'completed' } } } };

/** A turn over message/send: what its user read, the state it ended in, and the state tasks/get then shows. */
async function sent(gatewayUrl: string, message: Record<string, unknown>) {
  const task = (await rpc(gatewayUrl, 'message/send', { message })).body.result;
  const got = (await rpc(gatewayUrl, 'tasks/get', { id: task.id })).body.result;
  return { read: sentText(task), state: task.status.state, got: got.status.state, taskId: task.id, contextId: task.contextId };
}

/** A turn over message/stream: what its user read, its last frame, and the state tasks/get then shows. */
async function streamed(gatewayUrl: string, message: Record<string, unknown>) {
  const events = results(await (await openStream(`${gatewayUrl}/stream`, 'message/stream', { message })).rest());
  const got = (await rpc(gatewayUrl, 'tasks/get', { id: events[0].id })).body.result;
  return { read: streamedText(events), last: events.at(-1), got: got.status.state, taskId: events[0].id, contextId: events[0].contextId };
}

const lastSentParts = (fake: FakeIacCode): unknown => (fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any).params.message.parts;

describe.each(['open', 'parked'] as const)('bailian: a turn that waits on a permission prompt (the prompt waits %s)', (permissionWait) => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ script: { ...SCRIPT, permission: true }, permissionWait });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('message/send: ends input-required, as tasks/get shows it; "同意" sent back into the task allows the tool, and that turn ends completed', async () => {
    const asked = await sent(gateway.url, userMessage({ text: 'Create a VPC' }));
    expect(asked).toMatchObject({ read: `${BEFORE.join('')}\n${QUESTION}`, state: 'input-required', got: 'input-required' });
    // Bailian routes the user's next message back to the task it was told waits.
    const answered = await sent(gateway.url, userMessage({ text: '同意', taskId: asked.taskId, contextId: asked.contextId }));
    expect(lastSentParts(fake)).toMatchObject([{ data: { kind: 'permission', decision: 'allow_once' } }]);
    expect(answered).toMatchObject({ read: ALLOWED_IN_CHINESE, state: 'completed', got: 'completed' });
  });

  it('message/stream: the last frame is final and input-required, as tasks/get shows it; the answer over message/stream ends completed', async () => {
    const asked = await streamed(gateway.url, userMessage({ text: 'Create a VPC' }));
    expect(asked.read).toBe(`${BEFORE.join('')}\n${QUESTION}`);
    expect(asked.last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    expect(asked.got).toBe('input-required');
    const answered = await streamed(gateway.url, userMessage({ text: 'Allow once', taskId: asked.taskId, contextId: asked.contextId }));
    expect(lastSentParts(fake)).toMatchObject([{ data: { kind: 'permission', decision: 'allow_once' } }]);
    expect(answered.read).toBe(ALLOWED);
    expect(answered.last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(answered.got).toBe('completed');
  });
});

describe('bailian: an ordinary iac-code turn (its INPUT_REQUIRED asks nothing)', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ script: SCRIPT });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('ends completed in message/send, message/stream and tasks/get', async () => {
    expect(await sent(gateway.url, userMessage({ text: 'Create a VPC' }))).toMatchObject({ state: 'completed', got: 'completed' });
    const read = await streamed(gateway.url, userMessage({ text: 'Create a VPC' }));
    expect(read.last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(read.got).toBe('completed');
  });
});

describe('bailian with INPUT_REQUIRED mapped by the operator (bailian.mappings)', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ script: { ...SCRIPT, permission: true } });
    gateway = await startFacadeGateway({ upstream: { url: fake.url }, ...INPUT_REQUIRED_AS_COMPLETED });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('a prompt turn ends as the operator mapped it; its answer still reaches iac-code', async () => {
    const asked = await sent(gateway.url, userMessage({ text: 'Create a VPC' }));
    expect(asked).toMatchObject({ read: `${BEFORE.join('')}\n${QUESTION}`, state: 'completed', got: 'completed' });
    const read = await streamed(gateway.url, userMessage({ text: 'Create a VPC' }));
    expect(read.last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const answered = await sent(gateway.url, userMessage({ text: 'Allow once', contextId: read.contextId }));
    expect(lastSentParts(fake)).toMatchObject([{ data: { kind: 'permission', decision: 'allow_once' } }]);
    expect(answered.read).toBe(ALLOWED);
  });
});
