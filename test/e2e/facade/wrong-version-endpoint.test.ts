/**
 * A caller at the other version's JSON-RPC endpoint is told whose method it called and where that version is
 * served, in its own version's error form: not only "Method not found", which reads as a method that does not
 * exist. The facade's path is the operator's (`bailian.base-path`); the 1.0 endpoint is `POST /`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { openStream, rpc, userMessage } from '../../support/facade.js';

const v1Message = { message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
const V1_HEADERS = { 'a2a-version': '1.0' };

/** A 0.2.5 error object: code and message, none of 1.0's ErrorInfo list (`data`). */
const expectV025Error = (error: any): void => expect(Object.keys(error).sort()).toEqual(['code', 'message']);

describe('the facade under /bailian, the 1.0 endpoint at /', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ bailian: { 'base-path': '/bailian' } });
  });
  afterAll(() => gateway.close());

  for (const [method, params] of [
    ['message/send', { message: userMessage({ text: 'hi' }) }],
    ['tasks/get', { id: 'some-task' }],
  ] as const) {
    it(`${method} at /: -32601 in 0.2.5's form, naming 0.2.5 and the facade's paths`, async () => {
      const answer = await rpc(`${gateway.url}/`, method, params, { id: 3 });
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } });
      expectV025Error(answer.body.error);
      expect(answer.body.error.message).toBe(
        `${method} is an A2A 0.2.5 method, served by the Bailian facade at POST /bailian ` +
          '(message/stream also at POST /bailian/stream), not by this A2A 1.0 endpoint',
      );
    });
  }

  it('message/stream at /: the same as the one SSE frame a 0.2.5 stream answers errors in (the 0.2.5 client refuses JSON there)', async () => {
    const stream = await openStream(`${gateway.url}/`, 'message/stream', { message: userMessage({ text: 'hi' }) }, { id: 4 });
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.rest();
    expect(frames).toHaveLength(1);
    expect(frames[0]!.event).toBeUndefined();
    expect(frames[0]!.json).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32601 } });
    expectV025Error(frames[0]!.json.error);
    expect(frames[0]!.json.error.message).toMatch(/^message\/stream is an A2A 0\.2\.5 method, served by the Bailian facade at POST \/bailian /);
  });

  it('a namespace/verb name the facade does not know either: still the plain -32601', async () => {
    const answer = await rpc(`${gateway.url}/`, 'tasks/explode', {}, { id: 5 });
    expect(answer.body.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  for (const path of ['/bailian', '/bailian/stream']) {
    it(`SendMessage at ${path}: -32601 in 1.0's form, naming 1.0 and POST / with its header`, async () => {
      for (const headers of [V1_HEADERS, {}]) {
        const answer = await rpc(`${gateway.url}${path}`, 'SendMessage', v1Message, { id: 6, headers });
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 6, error: { code: -32601 } });
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(answer.body.error.message).toBe(
          "SendMessage is an A2A 1.0 method, served by the gateway's A2A 1.0 JSON-RPC endpoint at POST / " +
            '(with the header A2A-Version: 1.0), not by this endpoint of the Bailian facade, which speaks A2A 0.2.5',
        );
      }
    });
  }

  it('a PascalCase name 1.0 does not know either, at /bailian: still the plain -32601', async () => {
    const answer = await rpc(`${gateway.url}/bailian`, 'SendTelegram', {}, { id: 7 });
    expect(answer.body.error.message).toBe('Method not found');
  });
});

describe('the facade at / (shared with 1.0)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway();
  });
  afterAll(() => gateway.close());

  it("SendMessage at the facade's /stream: told that POST / serves it", async () => {
    const answer = await rpc(`${gateway.url}/stream`, 'SendMessage', v1Message, { id: 8, headers: V1_HEADERS });
    expect(answer.body.error.code).toBe(-32601);
    expect(answer.body.error.message).toMatch(/^SendMessage is an A2A 1\.0 method, served by the gateway's A2A 1\.0 JSON-RPC endpoint at POST \/ /);
  });

  it('on POST / both versions are served: a 1.0 method without the header is still the -32009 that says to send it', async () => {
    const answer = await rpc(`${gateway.url}/`, 'SendMessage', v1Message, { id: 9 });
    expect(answer.body.error.code).toBe(-32009);
    expect(answer.body.error.message).toMatch(/send the header A2A-Version: 1\.0/);
  });
});
