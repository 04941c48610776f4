/**
 * iac-code's own routes, named by its card and docs (`/iac-code/readiness`, and
 * `/iac-code/pipeline/state`, its pipeline-events extension's `stateEndpoint`), served through the
 * gateway behind the gateway's auth, reached upstream with the gateway's upstream credentials; URLs in
 * extension params that point at the upstream are rewritten to the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import type { AgentCard } from '../../../src/model/index.js';
import { servedCard } from '../../../src/surfaces/v1/index.js';
import { startDemoGateway, startSdkGateway, startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { READINESS } from '../../support/fake-iac-code-routes.js';

const GATEWAY_TOKEN = 'gateway-token-123';
const UPSTREAM_TOKEN = 'upstream-token-456';
const PIPELINE_EXTENSION = 'urn:iac-code:a2a:pipeline-events:v1';
const AUTH = { authorization: `Bearer ${GATEWAY_TOKEN}` };
/** A second credential of the same gateway: another principal. */
const OTHER_KEY = 'other-key-789';
const OTHER = { 'x-api-key': OTHER_KEY };
/** A turn in iac-code's pipeline mode: only those are journaled, and the state route 404s any other task. */
const PIPELINE_TURN = { iac_code: { run_mode: 'pipeline' } };

async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: (await response.json()) as any };
}

describe('through the gateway to iac-code (a fake faithful to its captures), both behind auth', () => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ auth: { token: UPSTREAM_TOKEN } });
    gateway = await startTestGateway({
      upstream: { url: fake.url, auth: { token: UPSTREAM_TOKEN } },
      auth: { token: GATEWAY_TOKEN, 'api-key': OTHER_KEY, 'api-key-header': 'X-API-Key' },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  it("the card's stateEndpoint resolves to the gateway, which answers it", async () => {
    const card = await getJson(`${gateway.url}/.well-known/agent-card.json`, AUTH);
    const extension = card.body.capabilities.extensions.find((entry: { uri: string }) => entry.uri === PIPELINE_EXTENSION);
    const stateEndpoint = new URL(extension.params.stateEndpoint, `${gateway.url}/.well-known/agent-card.json`);
    expect(stateEndpoint.origin).toBe(gateway.url);
    expect(JSON.stringify(card.body)).not.toContain(fake.url);

    const sent = await fetch(`${gateway.url}/message:send`, {
      method: 'POST',
      headers: { ...AUTH, 'a2a-version': '1.0', 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'routes-1', role: 'ROLE_USER', parts: [{ text: 'hello' }], metadata: PIPELINE_TURN } }),
    }).then((response) => response.json() as Promise<any>);
    const taskId = sent.task.id;
    stateEndpoint.searchParams.set('taskId', taskId);
    stateEndpoint.searchParams.set('afterSequence', '0');
    const state = await getJson(stateEndpoint.href, AUTH);
    expect(state.status).toBe(200);
    // iac-code's shape (read in its source): the state it folds the journal into, and the journaled envelopes after the number.
    expect(state.body).toMatchObject({ snapshot: { taskId, contextId: sent.task.contextId } });
    expect(state.body.events.length).toBeGreaterThan(0);
    for (const envelope of state.body.events) expect(envelope).toMatchObject({ taskId, sequence: expect.any(Number) });
  });

  it("readiness is iac-code's own document; the upstream sees the gateway's upstream credential, not the caller's", async () => {
    const answer = await getJson(`${gateway.url}/iac-code/readiness`, AUTH);
    expect(answer).toMatchObject({ status: 200, contentType: expect.stringMatching(/^application\/json/), body: READINESS });
    const seen = fake.requests.filter((request) => request.path === '/iac-code/readiness').at(-1);
    expect(seen?.headers.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
  });

  it("both routes are behind the gateway's auth", async () => {
    for (const path of ['/iac-code/readiness', '/iac-code/pipeline/state?taskId=x']) {
      expect(await getJson(`${gateway.url}${path}`)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
      expect((await getJson(`${gateway.url}${path}`, { authorization: 'Bearer wrong' })).status).toBe(401);
    }
  });

  async function sendAs(headers: Record<string, string>): Promise<{ id: string; contextId: string }> {
    const sent = await fetch(`${gateway.url}/message:send`, {
      method: 'POST',
      headers: { ...headers, 'a2a-version': '1.0', 'content-type': 'application/json' },
      body: JSON.stringify({
        message: { messageId: `routes-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hello' }], metadata: PIPELINE_TURN },
      }),
    }).then((response) => response.json() as Promise<any>);
    return sent.task;
  }

  it("the upstream's own answers to bad queries come back as they are", async () => {
    const own = await sendAs(AUTH);
    expect(await getJson(`${gateway.url}/iac-code/pipeline/state`, AUTH)).toMatchObject({
      status: 400,
      body: { error: 'contextId or taskId is required' },
    });
    expect(await getJson(`${gateway.url}/iac-code/pipeline/state?taskId=${own.id}&afterSequence=-1`, AUTH)).toMatchObject({
      status: 400,
      body: { error: 'afterSequence must be a non-negative integer' },
    });
    expect((await getJson(`${gateway.url}/iac-code/pipeline/state?taskId=no-such-task`, AUTH)).status).toBe(404);
  });

  it("another credential's task or context is not found there, and never asked of the agent", async () => {
    const alices = await sendAs(AUTH);
    const asked = () => fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').length;
    const before = asked();
    for (const query of [`taskId=${alices.id}`, `contextId=${alices.contextId}`, `contextId=${alices.contextId}&taskId=${alices.id}`]) {
      expect(await getJson(`${gateway.url}/iac-code/pipeline/state?${query}`, OTHER), query).toMatchObject({
        status: 404,
        body: { error: 'Not Found' },
      });
    }
    expect(asked()).toBe(before);
    const bobs = await sendAs(OTHER);
    expect((await getJson(`${gateway.url}/iac-code/pipeline/state?contextId=${bobs.contextId}&taskId=${alices.id}`, OTHER)).status).toBe(404);
    expect(await getJson(`${gateway.url}/iac-code/pipeline/state?contextId=${alices.contextId}`, AUTH)).toMatchObject({
      status: 200,
      body: { snapshot: { taskId: alices.id } },
    });
    expect((await getJson(`${gateway.url}/iac-code/pipeline/state?taskId=${bobs.id}`, OTHER)).body).toMatchObject({ snapshot: { taskId: bobs.id } });
  });

  // iac-code (Starlette) reads the last of a repeated parameter, and an empty one as none; the fake does so too.
  it('a taskId or contextId given twice is refused before anything is asked, whoever owns it; a lone empty one is none', async () => {
    const alices = await sendAs(AUTH);
    const bobs = await sendAs(OTHER);
    const asked = () => fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').length;
    const before = asked();
    for (const query of [
      `taskId=&taskId=${alices.id}`,
      `taskId=${bobs.id}&taskId=${alices.id}`,
      `taskId=${bobs.id}&task%49d=${alices.id}`,
      `contextId=&contextId=${alices.contextId}`,
      `contextId=${bobs.contextId}&contextId=${alices.contextId}`,
      `taskId=${bobs.id}&contextId=&contextId=${alices.contextId}`,
    ]) {
      const answer = await getJson(`${gateway.url}/iac-code/pipeline/state?${query}`, OTHER);
      expect(answer, query).toMatchObject({ status: 400, body: { error: 'taskId and contextId may each be given once' } });
      expect(JSON.stringify(answer.body)).not.toContain(alices.id);
    }
    // The owner is answered the same: the refusal tells nothing of whose ids they are.
    expect((await getJson(`${gateway.url}/iac-code/pipeline/state?taskId=${alices.id}&taskId=${alices.id}`, AUTH)).status).toBe(400);
    expect(asked()).toBe(before);
    // The route's own template (`?contextId=&taskId=&afterSequence=`) filled in part: the empty one names nothing.
    const partly = await getJson(`${gateway.url}/iac-code/pipeline/state?contextId=${alices.contextId}&taskId=&afterSequence=0`, AUTH);
    expect(partly.status).not.toBe(400);
    const forwarded = fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').at(-1);
    expect(forwarded?.query.has('taskId')).toBe(false);
  });

  it("only the route's own parameters reach the agent, one value each, as the gateway read them", async () => {
    const own = await sendAs(AUTH);
    const query = `taskId=${own.id}&afterSequence=5&afterSequence=0&includeSnapshot=false&lean=1&x-upstream=1&taskid=${own.id}`;
    expect((await getJson(`${gateway.url}/iac-code/pipeline/state?${query}`, AUTH)).status).toBe(200);
    const seen = fake.requests.filter((request) => request.path === '/iac-code/pipeline/state').at(-1);
    expect([...(seen?.query.entries() ?? [])]).toEqual([
      ['taskId', own.id],
      ['afterSequence', '0'],
      ['includeSnapshot', 'false'],
      ['lean', '1'],
    ]);
    await getJson(`${gateway.url}/iac-code/readiness?taskId=${own.id}&probe=1`, AUTH);
    expect([
      ...(fake.requests
        .filter((request) => request.path === '/iac-code/readiness')
        .at(-1)
        ?.query.keys() ?? []),
    ]).toEqual([]);
  });
});

describe.each([
  ['embedded demo agent', startDemoGateway],
  ['a2a-js 1.x server', startSdkGateway],
])('in front of an agent without these routes (%s)', (_name, start) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await start();
  });
  afterAll(() => gateway.close());

  it('they are a plain JSON 404, nothing of the upstream shows', async () => {
    const answer = await getJson(`${gateway.url}/iac-code/readiness`);
    expect(answer).toMatchObject({ status: 404, body: { error: 'Not Found' } });
  });
});

describe('extension params pointing at the upstream', () => {
  const card: AgentCard = {
    name: 'up',
    description: 'd',
    version: '1',
    supportedInterfaces: [{ url: 'http://up.internal:41242/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {
      extensions: [
        {
          uri: PIPELINE_EXTENSION,
          params: {
            stateEndpoint: 'http://up.internal:41242/iac-code/pipeline/state',
            nested: { list: ['http://up.internal:41242', 'http://up.internal:412420/x', 'https://elsewhere.example/x'] },
            relative: '/iac-code/pipeline/state',
          },
        },
      ],
    },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };

  it('are rewritten to the gateway; other hosts and relative paths stay', () => {
    const served = servedCard(card, 'https://agents.example.com/gw', defaultConfig());
    expect(served.capabilities.extensions?.[0]?.params).toEqual({
      stateEndpoint: 'https://agents.example.com/gw/iac-code/pipeline/state',
      nested: { list: ['https://agents.example.com/gw', 'http://up.internal:412420/x', 'https://elsewhere.example/x'] },
      relative: '/iac-code/pipeline/state',
    });
  });
});
