/**
 * The 1.0 surface as the A2A 1.0 spec and its official client (a2a-js 1.x) expect it, in front of the
 * embedded demo agent and a real a2a-js 1.x server (and, where it matters, a strict iac-code-like peer):
 * - the card at /.well-known/agent-card.json is a clean 1.0 AgentCard: it validates against a JSON
 *   schema of lf.a2a.v1.AgentCard written from the proto (schemas/agent-card-1.0.schema.json);
 * - a request that does not declare a JSON body: JSON-RPC -32005, HTTP+JSON 415 with an AIP-193 body;
 * - unknown request fields are ignored as ProtoJSON parsers do, never sent upstream; known ones are checked.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TaskState } from 'a2a-sdk-1';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { TRANSPORTS, asTask, cardResolver, connect, sendRequest, textOf, type RecordedRequest } from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';

const AGENT_CARD_SCHEMA = z.fromJSONSchema(JSON.parse(readFileSync(new URL('./schemas/agent-card-1.0.schema.json', import.meta.url), 'utf8')));
const LEGACY_FIELDS = ['url', 'preferredTransport', 'protocolVersion', 'additionalInterfaces'];
const V1 = { 'a2a-version': '1.0' };
const JSON_V1 = { ...V1, 'content-type': 'application/json' };

function schemaProblems(card: unknown): string[] {
  const result = AGENT_CARD_SCHEMA.safeParse(card);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
}

const rpcBody = (method: string, params: unknown, id: unknown = 'c-1') => JSON.stringify({ jsonrpc: '2.0', id, method, params });

let counter = 0;
const messageWithUnknownFields = () => ({
  messageId: `unknown-fields-${++counter}`,
  role: 'ROLE_USER',
  parts: [{ text: 'hello there', kind: 'text', futureField: { a: 1 } }],
  kind: 'message',
  futureMessageField: true,
});

describe('the schema itself', () => {
  it('rejects what a 1.0 AgentCard may not hold, so a pass means something', () => {
    const minimal = {
      name: 'a',
      description: 'd',
      supportedInterfaces: [{ url: 'https://a.example/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'x', tags: [] }],
    };
    expect(schemaProblems(minimal)).toEqual([]);
    for (const legacy of LEGACY_FIELDS) expect(schemaProblems({ ...minimal, [legacy]: 'x' })).not.toEqual([]);
    expect(schemaProblems({ ...minimal, supportedInterfaces: [] })).not.toEqual([]);
    expect(schemaProblems({ ...minimal, capabilities: { stateTransitionHistory: true } })).not.toEqual([]);
    expect(schemaProblems({ ...minimal, securitySchemes: { b: { type: 'http', scheme: 'bearer' } } })).not.toEqual([]);
  });
});

describe.each(UPSTREAMS)('1.0 surface conformance → $name', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGateway();
  });
  afterAll(() => gateway.close());

  describe('agent card', () => {
    it('is a clean 1.0 AgentCard: valid against the schema, no 0.3 top-level fields', async () => {
      const card: any = await fetch(`${gateway.url}/.well-known/agent-card.json`).then((response) => response.json());
      expect(schemaProblems(card)).toEqual([]);
      for (const legacy of LEGACY_FIELDS) expect(card).not.toHaveProperty(legacy);
      expect(card.supportedInterfaces.map((entry: { protocolBinding: string }) => entry.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    });

    it('the extended card, where the agent has one, is a clean 1.0 AgentCard too', async () => {
      const answer = await post(`${gateway.url}/`, rpcBody('GetExtendedAgentCard', {}), JSON_V1);
      if ('skillIds' in upstream.extendedCard) {
        expect(schemaProblems(answer.json.result)).toEqual([]);
        expect(answer.json.result.skills.map((skill: { id: string }) => skill.id)).toEqual(upstream.extendedCard.skillIds);
      } else {
        expect(answer.json.error.data[0].reason).toBe(upstream.extendedCard.errorReason);
      }
    });

    it.each(TRANSPORTS)('the official client resolves it and talks over %s', async (transport) => {
      const requests: RecordedRequest[] = [];
      const resolved = await cardResolver(requests).resolve(gateway.url);
      expect(resolved.supportedInterfaces.length).toBe(2);
      const { client } = await connect(gateway.url, transport);
      const task = asTask(await client.sendMessage(sendRequest('card check')));
      expect(textOf(task.status?.message) || task.artifacts.length).toBeTruthy();
      expect([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_INPUT_REQUIRED]).toContain(task.status?.state);
    });
  });

  describe('Content-Type', () => {
    it('JSON-RPC: text/plain, a form type or none is -32005 ContentTypeNotSupported with the id echoed', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
        const headers: Record<string, string> = { ...V1, ...(contentType ? { 'content-type': contentType } : {}) };
        const answer = await post(`${gateway.url}/`, rpcBody('GetTask', { id: 'whatever' }, 41), headers);
        expect(answer.status).toBe(200);
        expect(answer.json).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32005 } });
        expect(answer.json.error.data[0]).toMatchObject({ reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org' });
      }
      // A body that is not JSON either: the Content-Type is what to fix.
      const garbage = await post(`${gateway.url}/`, 'a=b&c=d', { ...V1, 'content-type': 'application/x-www-form-urlencoded' });
      expect(garbage.json.error.code).toBe(-32005);
    });

    it('JSON-RPC: application/json with parameters and application/a2a+json are accepted', async () => {
      for (const contentType of ['application/json; charset=utf-8', 'application/a2a+json', 'Application/JSON']) {
        const answer = await post(`${gateway.url}/`, rpcBody('GetTask', { id: 'no-such-task' }), { ...V1, 'content-type': contentType });
        expect(answer.json.error.code).toBe(-32001);
      }
    });

    it('HTTP+JSON: 415 Unsupported Media Type with a google.rpc.Status (AIP-193) body', async () => {
      const body = JSON.stringify({ message: messageWithUnknownFields() });
      for (const headers of [{ ...V1, 'content-type': 'text/plain' }, V1]) {
        const answer = await post(`${gateway.url}/message:send`, body, headers);
        expect(answer.status).toBe(415);
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(answer.json).toEqual({
          error: {
            code: 415,
            status: 'INVALID_ARGUMENT',
            message: expect.stringContaining('Content type not supported'),
            details: [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org', metadata: {} },
            ],
          },
        });
      }
      // A bodiless POST (cancel without metadata) needs no type.
      const cancel = await fetch(`${gateway.url}/tasks/no-such-task:cancel`, { method: 'POST', headers: V1 });
      expect(cancel.status).toBe(404);
    });
  });

  describe('unknown fields', () => {
    it('JSON-RPC and HTTP+JSON: ignored at every level, the call works', async () => {
      const params = { message: messageWithUnknownFields(), configuration: { historyLength: 1, blocking: true }, futureTopLevel: 'x' };
      const rpc = await post(`${gateway.url}/`, rpcBody('SendMessage', params), JSON_V1);
      expect(rpc.json.error).toBeUndefined();
      const taskId = rpc.json.result.task.id;
      expect(rpc.json.result.task.status.state).toBe(
        upstream.endState === TaskState.TASK_STATE_COMPLETED ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_INPUT_REQUIRED',
      );

      const rest = await post(`${gateway.url}/message:send`, JSON.stringify({ ...params, message: messageWithUnknownFields() }), JSON_V1);
      expect(rest.status).toBe(200);
      expect(rest.json.task.id).toEqual(expect.any(String));

      const get = await post(`${gateway.url}/`, rpcBody('GetTask', { id: taskId, historyLength: 0, includeEverything: true }), JSON_V1);
      expect(get.json.result.id).toBe(taskId);
    });

    it('known fields are still checked: -32602 names the field, not the unknown one', async () => {
      const params = { message: { ...messageWithUnknownFields(), role: 'user' }, surplus: 1 };
      const answer = await post(`${gateway.url}/`, rpcBody('SendMessage', params), JSON_V1);
      expect(answer.json.error.code).toBe(-32602);
      expect(answer.json.error.message).toContain('message.role');
      expect(JSON.stringify(answer.json.error)).not.toContain('surplus');
    });
  });
});

describe('unknown fields never reach a strict upstream (iac-code rejects them)', () => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    gateway = await startTestGateway({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  it('SendMessage with extra fields succeeds and the upstream receives only the known ones', async () => {
    const params = { message: messageWithUnknownFields(), configuration: { historyLength: 0, blocking: true }, futureTopLevel: 'x' };
    const rpc = await post(`${gateway.url}/`, rpcBody('SendMessage', params), JSON_V1);
    expect(rpc.json.error).toBeUndefined();
    const rest = await post(`${gateway.url}/message:send`, JSON.stringify({ message: messageWithUnknownFields(), extra: [1] }), JSON_V1);
    expect(rest.status).toBe(200);
    const sent = fake.rpcRequests('SendMessage').map((request) => (request.body as { params: unknown }).params);
    expect(sent).toHaveLength(2);
    // The history bound cuts the gateway's answer, not the agent's (history-length.ts): nothing is left of the configuration.
    expect(sent[0]).toEqual({ message: { messageId: params.message.messageId, role: 'ROLE_USER', parts: [{ text: 'hello there' }] } });
    expect(Object.keys(sent[1] as object)).toEqual(['message']);
  });

  it('the card of an iac-code upstream, which carries the 0.3 fields, is served clean', async () => {
    const card: any = await fetch(`${gateway.url}/.well-known/agent-card.json`).then((response) => response.json());
    for (const legacy of LEGACY_FIELDS) expect(card).not.toHaveProperty(legacy);
    expect(schemaProblems(card)).toEqual([]);
  });
});

describe('the card of a gateway with auth and push on', () => {
  it('advertises its schemes and still validates', async () => {
    const gateway = await UPSTREAMS[1]!.startGateway({ auth: { token: 'tok-1', 'api-key': 'key-1' }, 'push-notifications': true });
    try {
      const card: any = await fetch(`${gateway.url}/.well-known/agent-card.json`, { headers: { authorization: 'Bearer tok-1' } }).then((response) =>
        response.json(),
      );
      expect(Object.keys(card.securitySchemes).length).toBe(2);
      expect(card.capabilities.pushNotifications).toBe(true);
      expect(schemaProblems(card)).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});

describe('card-legacy-fields', () => {
  it('opts into the 0.3 top-level fields, pointing at the gateway', async () => {
    const gateway = await UPSTREAMS[0]!.startGateway({ 'card-legacy-fields': true });
    try {
      const card: any = await fetch(`${gateway.url}/.well-known/agent-card.json`).then((response) => response.json());
      expect(card).toMatchObject({ url: `${gateway.url}/`, preferredTransport: 'JSONRPC', protocolVersion: '1.0' });
      expect(card.additionalInterfaces).toEqual([{ url: gateway.url, transport: 'HTTP+JSON' }]);
    } finally {
      await gateway.close();
    }
  });
});
