/**
 * HEAD on the HTTP+JSON binding: a unary GET route is served as GET without its body (RFC 9110 §9.3.2), so a
 * monitor or a cache that asks HEAD learns whether a task exists and what a GET would answer; a route that
 * starts a subscription is no such read (HEAD must not open a stream upstream that nobody reads): 405 with Allow.
 * Sent with node:http, which sends the method as written and reads a HEAD answer's headers only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactRequest, type ExactAnswer } from '../../support/exact-http.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { sendMessageParams } from '../../support/v1-message.js';

const TOKEN = 'head-token';
const HEADERS = { authorization: `Bearer ${TOKEN}`, 'a2a-version': '1.0', 'content-type': 'application/json' };

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway({ auth: { token: TOKEN } });
});
afterAll(async () => {
  await gateway?.close();
});

const raw = (method: string, path: string, body?: string): Promise<ExactAnswer> => exactRequest(gateway.url, method, path, HEADERS, body);

/** A finished task of the demo agent, created under `prefix` (a `/{tenant}` segment, or none). */
async function taskId(prefix: string): Promise<string> {
  const sent = await raw('POST', `${prefix}/message:send`, JSON.stringify(sendMessageParams('hello')));
  expect(sent.status).toBe(200);
  return (JSON.parse(sent.text) as { task: { id: string } }).task.id;
}

describe('HEAD of a unary GET route: the GET answer without its body', () => {
  it.each([
    ['', 'the default tenant'],
    ['/acme', 'a tenant'],
  ])('HEAD %s/tasks/{id} (%s): 200 as GET, no body', async (prefix) => {
    const id = await taskId(prefix);
    const get = await raw('GET', `${prefix}/tasks/${id}`);
    const head = await raw('HEAD', `${prefix}/tasks/${id}`);
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.text).toBe('');
  });

  it('HEAD of a task that is not there: the 404 a GET answers, no body', async () => {
    const get = await raw('GET', '/tasks/no-such-task');
    const head = await raw('HEAD', '/tasks/no-such-task');
    expect(get.status).toBe(404);
    expect(head.status).toBe(404);
    expect(head.text).toBe('');
  });

  it.each(['/tasks', '/acme/tasks'])('HEAD %s (ListTasks): 200 as GET', async (path) => {
    expect((await raw('HEAD', path)).status).toBe(200);
  });

  it('a route that takes GET lists HEAD in its Allow', async () => {
    const refused = await raw('PUT', '/tasks/x');
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD');
  });
});

describe('HEAD of a route that starts a subscription: 405, nothing subscribed upstream', () => {
  it.each(['/tasks/x:subscribe', '/acme/tasks/x:subscribe'])('HEAD %s', async (path) => {
    const before = gateway.requestLog().filter((line) => line.method === 'SubscribeToTask').length;
    const refused = await raw('HEAD', path);
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('GET, POST');
    expect(gateway.requestLog().filter((line) => line.method === 'SubscribeToTask')).toHaveLength(before);
  });

  it.each(['/message:stream', '/message:send'])('HEAD %s: 405, Allow: POST', async (path) => {
    const refused = await raw('HEAD', path);
    expect(refused.status).toBe(405);
    expect(refused.headers.allow).toBe('POST');
  });
});
