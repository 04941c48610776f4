/**
 * The gateway driven exactly the way Bailian (百炼, 三方Agent) drives a third-party agent
 * (docs/bailian.md: card fields, `url + "/stream"`, X-API-KEY, message/stream event order),
 * in front of the embedded demo agent, whose replies are deterministic (demoReply).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { API_KEY, joinedArtifact, openStream, results, rpc, startFacadeGateway, userMessage, type SseFrame } from '../../support/facade.js';

const PUBLIC_URL = 'https://gw.example.com';

/** What Bailian checks on the card it is given (every required field of the contract). */
function expectBailianCard(card: any, url: string): void {
  for (const field of ['name', 'description', 'url', 'version', 'protocolVersion']) {
    expect(typeof card[field], field).toBe('string');
    expect(card[field].length, field).toBeGreaterThan(0);
  }
  expect(card.url).toBe(url);
  expect(card.url.startsWith('https://')).toBe(true);
  expect(card.url.endsWith('/')).toBe(false);
  expect(card.protocolVersion).toBe('0.2.5');
  expect(card.capabilities.streaming).toBe(true);
  expect(Array.isArray(card.capabilities.extensions)).toBe(true);
  expect(card.defaultInputModes).toEqual(['text/plain']);
  expect(card.defaultOutputModes).toEqual(['text/plain']);
  expect(card.skills.length).toBeGreaterThanOrEqual(1);
  for (const skill of card.skills) {
    for (const field of ['id', 'name', 'description']) expect(skill[field].length, `skill.${field}`).toBeGreaterThan(0);
    expect(skill.tags.length).toBeGreaterThan(0);
    expect(skill.tags.every((tag: string) => tag.trim() !== '')).toBe(true);
  }
  expect(card.securitySchemes).toEqual({ apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } });
  expect(card.security).toEqual([{ apiKey: [] }]);
  expect(card.capabilities.extensions.map((extension: any) => extension.uri)).toContain(
    'https://help.aliyun.com/zh/model-studio/multimodal-integration-a2a-protocol',
  );
}

/** The documented order: task(submitted) → chunks (append, not last) … → last chunk → status-update(final). */
function expectBailianStream(frames: SseFrame[], requestId: string, reply: string, state = 'completed'): any[] {
  for (const frame of frames) {
    expect(frame.event).toBeUndefined();
    expect(frame.json.jsonrpc).toBe('2.0');
    expect(frame.json.id).toBe(requestId);
    expect(frame.json.error).toBeUndefined();
  }
  const events = results(frames);
  const [first] = events;
  expect(first).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
  expect(typeof first.status.timestamp).toBe('string');
  const last = events.at(-1);
  expect(last).toMatchObject({ kind: 'status-update', taskId: first.id, contextId: first.contextId, final: true, status: { state } });
  expect(events.filter((event) => event.kind === 'status-update' && event.final)).toHaveLength(1);

  // The text artifact: one id, every chunk appended, only the last one marked lastChunk.
  const textId = events[1].artifact.artifactId;
  const chunks = events.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === textId);
  expect(chunks.length).toBeGreaterThan(1);
  expect(chunks.every((event) => event.append === true)).toBe(true);
  expect(chunks.slice(0, -1).every((event) => event.lastChunk === false)).toBe(true);
  expect(chunks.at(-1).lastChunk).toBe(true);
  expect(events.at(-2)).toBe(chunks.at(-1));
  expect(joinedArtifact(events, textId)).toBe(reply);
  // Bailian shows every artifact's text: no other artifact may repeat the reply.
  const otherIds = new Set(
    events.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId !== textId).map((event) => event.artifact.artifactId),
  );
  for (const id of otherIds) expect(joinedArtifact(events, id)).not.toBe(reply);
  for (const event of events.slice(1)) expect([event.taskId, event.contextId]).toEqual([first.id, first.contextId]);
  return events;
}

describe('Bailian against the facade at base path /', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ 'public-url': PUBLIC_URL, bailian: { 'api-key': API_KEY } });
  });
  afterAll(() => gateway.close());

  const withKey = { 'X-API-KEY': API_KEY };

  it('reads the card without a key: every required field, an https url, apiKey in X-API-KEY', async () => {
    const response = await fetch(`${gateway.url}/.well-known/agent.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"sha256-/);
    expectBailianCard(await response.json(), PUBLIC_URL);
    const again = await fetch(`${gateway.url}/.well-known/agent.json`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
  });

  it('streams a turn at url + "/stream" in the documented order, then continues the context (turn 2)', async () => {
    const stream = await openStream(
      `${gateway.url}/stream`,
      'message/stream',
      { message: userMessage({ text: '今天会下雨吗？' }) },
      {
        id: 'request-1',
        headers: withKey,
      },
    );
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = expectBailianStream(await stream.rest(), 'request-1', demoReply('今天会下雨吗？', 1).full);
    const contextId = first[0].contextId;

    const followUp = await openStream(
      `${gateway.url}/stream`,
      'message/stream',
      { message: userMessage({ text: 'and tomorrow?', contextId }) },
      {
        id: 'request-2',
        headers: withKey,
      },
    );
    const second = expectBailianStream(await followUp.rest(), 'request-2', demoReply('and tomorrow?', 2).full);
    expect(second[0].contextId).toBe(contextId);
  });

  it('answers message/send at the url itself with a completed task holding the reply', async () => {
    const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'hi' }) }, { headers: withKey });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe('request-1');
    expect(answer.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(answer.body.result.artifacts).toHaveLength(1);
    expect(answer.body.result.artifacts[0].parts).toEqual([{ kind: 'text', text: demoReply('hi', 1).full }]);
  });

  it('refuses JSON-RPC calls without the right key: 401 with a JSON-RPC error naming X-API-KEY', async () => {
    for (const headers of [{}, { 'X-API-KEY': 'wrong' }, { Authorization: `Bearer ${API_KEY}` }] as Record<string, string>[]) {
      for (const path of ['/', '/stream']) {
        const answer = await rpc(`${gateway.url}${path}`, 'message/stream', { message: userMessage() }, { headers });
        expect(answer.status).toBe(401);
        expect(answer.body).toEqual({
          id: null,
          error: { code: -32000, message: 'Unauthorized: a valid API key is required in the X-API-KEY header' },
        });
      }
    }
  });
});

describe('Bailian against the facade at base path /bailian', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ 'public-url': PUBLIC_URL, bailian: { 'api-key': API_KEY, 'base-path': '/bailian/' } });
  });
  afterAll(() => gateway.close());

  it('serves the card under the base path (and at the well-known root), url = public URL + base path', async () => {
    for (const path of ['/bailian/.well-known/agent.json', '/bailian/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).toBe(200);
      expectBailianCard(await response.json(), `${PUBLIC_URL}/bailian`);
    }
    // The root agent-card.json stays the 1.0 card.
    const v1: any = await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json();
    expect(v1.supportedInterfaces).toBeDefined();
  });

  it('streams at /bailian/stream, sends at /bailian, and keeps the key', async () => {
    const stream = await openStream(
      `${gateway.url}/bailian/stream`,
      'message/stream',
      { message: userMessage({ text: 'ping' }) },
      {
        id: 'r-7',
        headers: { 'X-API-KEY': API_KEY },
      },
    );
    expectBailianStream(await stream.rest(), 'r-7', demoReply('ping', 1).full);
    const send = await rpc(
      `${gateway.url}/bailian`,
      'message/send',
      { message: userMessage({ text: 'pong' }) },
      { headers: { 'X-API-KEY': API_KEY } },
    );
    expect(send.body.result.status.state).toBe('completed');
    expect((await rpc(`${gateway.url}/bailian`, 'message/send', { message: userMessage() })).status).toBe(401);
  });
});

describe("Bailian's key rotated: the old and the new key side by side (bailian.api-keys)", () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    gateway = await startFacadeGateway({ 'public-url': PUBLIC_URL, bailian: { 'api-keys': [API_KEY, 'the-new-key'] } });
  });
  afterAll(() => gateway.close());

  it('answers either key in full, still asks for X-API-KEY on the card, and refuses any other', async () => {
    for (const key of [API_KEY, 'the-new-key']) {
      const answer = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'hi' }) }, { headers: { 'X-API-KEY': key } });
      expect(answer.status).toBe(200);
      expect(answer.body.result.artifacts[0].parts).toEqual([{ kind: 'text', text: demoReply('hi', 1).full }]);
    }
    expectBailianCard(await (await fetch(`${gateway.url}/.well-known/agent.json`)).json(), PUBLIC_URL);
    const refused = await rpc(gateway.url, 'message/send', { message: userMessage() }, { headers: { 'X-API-KEY': 'the-newer-key' } });
    expect(refused.status).toBe(401);
  });
});
