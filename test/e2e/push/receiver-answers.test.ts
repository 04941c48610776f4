/**
 * What a webhook's answer does to its notification, through the push service of a real gateway and a
 * real receiver: an ingress answering 404 or redirecting to a maintenance page while the receiver is
 * deployed is retried (README, push-max-attempts: "past a receiver's restart or deploy"), and only an
 * answer no retry can change (410, 413, 414, 431) is dead-lettered after one attempt.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ctx, environmentSuite, flush, Receiver, startHarness, streamTurn, userText, type Harness } from './harness.js';

const { env, open } = environmentSuite();

const ALICE = ctx('basic:alice', 'jsonrpc');

async function setup(): Promise<{ h: Harness; receiver: Receiver }> {
  const h = await startHarness(env(), {}, { subdir: `answers-${Math.random().toString(36).slice(2)}` });
  open.push(h);
  const receiver = await new Receiver().up();
  open.push({ close: () => receiver.down() });
  return { h, receiver };
}

/** A task with a config at `path`, then a turn on it whose change is pushed there. */
async function pushedTurn(h: Harness, receiver: Receiver, path: string): Promise<void> {
  const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
  await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}${path}` }, ALICE);
  await streamTurn(h.port, { message: userText('again', { taskId: first.taskId }) }, ALICE);
}

async function deadLetters(h: Harness): Promise<Array<{ url: string; lastError?: string; attempt?: number }>> {
  const text = await readFile(join(h.config['persistence-dir'], 'push', 'dead.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { job?: { url: string; lastError?: string; attempt?: number } } & { url: string })
    .map((entry) => entry.job ?? entry);
}

describe('a webhook answer other than 2xx', () => {
  it.each([
    ['404 from an ingress during a deploy', 404],
    ['a redirect to a maintenance page', 302],
    ['401 until the receiver takes the secret again', 401],
  ])('%s is retried, and the notification arrives once the receiver is back', async (_name, status) => {
    const { h, receiver } = await setup();
    const answers = [status, status];
    receiver.answer = () => answers.shift() ?? 200;
    await pushedTurn(h, receiver, '/deploy');
    const attempts = await receiver.waitFor('/deploy', 3);
    await flush(h, receiver);
    expect(receiver.at('/deploy')).toHaveLength(3);
    // The same notification each time, and never dead-lettered.
    expect(new Set(attempts.map((entry) => entry.headers['a2a-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((entry) => entry.body)).size).toBe(1);
    expect(await deadLetters(h)).toEqual([]);
  });

  it.each([410, 413, 414, 431])('HTTP %i cannot change on a retry: dead-lettered after one attempt, with its reason', async (status) => {
    const { h, receiver } = await setup();
    receiver.answer = (entry) => (entry.path === '/final' ? status : 200);
    await pushedTurn(h, receiver, '/final');
    await flush(h, receiver);
    expect(receiver.at('/final')).toHaveLength(1);
    expect(await deadLetters(h)).toMatchObject([{ url: `${receiver.url}/final`, lastError: `HTTP ${status}` }]);
  });
});
