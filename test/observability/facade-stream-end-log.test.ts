/**
 * The `stream ended` line of a facade message/stream says what its user was shown, as the facade noted it at the
 * stream's end: the state of the last status it wrote and, for a turn shown failed, why as its user read it: under
 * the Bailian profile the reply's words (a Bailian user reads the reply artifact alone), under plain 0.2.5 the failed
 * status's message. message/send's request line says the same turn's cause alike. A caller that hangs up, or the
 * drain that cuts the stream, ends it so, with the state its user was last shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStream, results, rpc, streamedText, userMessage, type OpenStream } from '../support/facade.js';
import { CAPTURED_SCRIPT } from '../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/wait-until.js';

const INFO = 30;
const WARN = 40;

/** The agent's words before it fails the turn: more chunks than a few, so a cause read from the last few would lose its start. */
const WORDS = ['Checking ', 'the ', 'template ', 'in ', 'three ', 'regions: ', 'eu, ', 'us ', 'and ', 'ap. ', 'It ', 'is ', 'valid.'];
const FAILURE = 'Model quota exceeded.';

let agent: FakeIacCode;
let bailian: TestGateway;
let plain: TestGateway;

beforeAll(async () => {
  agent = await startFakeIacCode({ script: { ...CAPTURED_SCRIPT, before: WORDS, error: { text: FAILURE } } });
  bailian = await startTestGateway({ upstream: { url: agent.url } });
  plain = await startTestGateway({ upstream: { url: agent.url }, bailian: { profile: 'a2a-0.2.5' } });
});
afterAll(async () => {
  await bailian?.close();
  await plain?.close();
  await agent?.close();
});

let sequence = 0;

/** message/stream of `text` with a request id of its own. */
async function stream(gateway: TestGateway, text: string): Promise<{ reqId: string; opened: OpenStream }> {
  const reqId = `facade-stream-end-${++sequence}`;
  const opened = await openStream(
    `${gateway.url}/stream`,
    'message/stream',
    { message: userMessage({ text }) },
    { headers: { 'x-request-id': reqId } },
  );
  return { reqId, opened };
}

async function lineOf(gateway: TestGateway, msg: string, reqId: string): Promise<Record<string, unknown>> {
  await waitUntil(async () => gateway.log().some((line) => line.msg === msg && line.reqId === reqId), 5_000);
  const lines = gateway.log().filter((line) => line.msg === msg && line.reqId === reqId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe("the stream ended line of the facade's message/stream", () => {
  it("Bailian: a turn the agent fails after its words ends error at warn, its cause the reply its user read, as message/send's request line says it", async () => {
    const { reqId, opened } = await stream(bailian, 'hello');
    const read = streamedText(results(await opened.rest()));
    expect(read).toBe(`${WORDS.join('')}\n${FAILURE}`);
    expect(await lineOf(bailian, 'stream ended', reqId)).toMatchObject({ level: WARN, ended: 'error', state: 'failed', cause: read });

    const sendId = `facade-send-${sequence}`;
    await rpc(bailian.url, 'message/send', { message: userMessage({ text: 'hello' }) }, { headers: { 'x-request-id': sendId } });
    expect(await lineOf(bailian, 'request', sendId)).toMatchObject({ level: WARN, state: 'failed', cause: read });
  });

  it("plain 0.2.5: the cause is the failed status's message, not the reply before it", async () => {
    const { reqId, opened } = await stream(plain, 'hello');
    const events = results(await opened.rest());
    expect(events.at(-1).status.message.parts[0].text).toBe(FAILURE);
    expect(await lineOf(plain, 'stream ended', reqId)).toMatchObject({ level: WARN, ended: 'error', state: 'failed', cause: FAILURE });
  });

  it('a caller that hangs up mid-reply: caller_left at info, with the state it was last shown and no cause', async () => {
    const { reqId, opened } = await stream(bailian, '[fault:hang-mid-stream after=4] hello');
    const task = await opened.next();
    const chunk = await opened.next();
    expect([task?.json.result.kind, chunk?.json.result.kind]).toEqual(['task', 'artifact-update']);
    opened.abort();
    const line = await lineOf(bailian, 'stream ended', reqId);
    expect(line).toMatchObject({ level: INFO, ended: 'caller_left', state: task?.json.result.status.state, events: 2 });
    expect(line.cause).toBeUndefined();
  });

  it('the drain that cuts a stream mid-reply: shutdown, with the failed state of the words that tell its user so', async () => {
    const draining = await startTestGateway({ upstream: { url: agent.url }, 'drain-timeout-ms': 200 });
    const { reqId, opened } = await stream(draining, '[fault:hang-mid-stream after=4] hello');
    await opened.next();
    await opened.next();
    const closed = draining.close();
    const events = results(await opened.rest());
    await closed;
    expect(streamedText(events)).toContain('The connection was interrupted');
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'failed' }, final: true });
    const line = await lineOf(draining, 'stream ended', reqId);
    expect(line).toMatchObject({ level: INFO, ended: 'shutdown', state: 'failed', events: 2 + events.length });
    expect(line.cause).toBeUndefined();
  });
});
