/**
 * An agent's own google.rpc.ErrorInfo through the gateway: for a 1.0 agent on each binding, a caller on
 * each of the gateway's 1.0 bindings reads it as the agent gave it (reason, domain, metadata scrubbed like
 * all upstream text), after the gateway's own ErrorInfo for an A2A error, which carries A2A's reason for the
 * code and the agent's A2A metadata. What would make an error read as another is not relayed: one of A2A's
 * reasons under another domain, a reason A2A does not define under A2A's domain, a domain that is no name.
 */
import type { Transport } from 'a2a-sdk-1/client';
import { decodeErrorInfo, decodeStatus, isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import {
  ERROR_INFO,
  startErrorInfoAgent,
  type AgentBinding,
  type ErrorInfoAgent,
  type ErrorInfoJson,
  type ScriptedError,
} from '../../support/error-info-agent.js';
import { sendRequest } from '../../support/sdk-v1-client.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { grpcTransport, wire } from '../grpc/grpc-client.js';

const A2A_ERROR_WITH_AGENTS_OWN: ScriptedError = {
  code: -32004,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  message: 'Uploads are off for this plan',
  infos: [
    { reason: 'UNSUPPORTED_OPERATION', domain: 'a2a-protocol.org', metadata: { feature: 'uploads' } },
    { reason: 'UPLOADS_DISABLED', domain: 'files.example.com', metadata: { plan: 'free' } },
  ],
};

const AGENTS_OWN_ERROR: ScriptedError = {
  code: -32603,
  httpStatus: 500,
  grpcStatus: 'INTERNAL',
  message: 'Quota exceeded',
  infos: [
    { reason: 'QUOTA_EXCEEDED', domain: 'billing.example.com', metadata: { limit: '100', ledger: 'kept at /var/lib/billing/ledger.db' } },
    { reason: 'TASK_NOT_FOUND', domain: 'billing.example.com', metadata: { taskId: 'someone-elses' } },
    { reason: 'INTERNAL_ERROR', domain: 'a2a-protocol.org', metadata: {} },
    { reason: 'QUOTA_EXCEEDED', domain: '/etc/billing', metadata: {} },
    // The gateway's own domain: a client would follow a task the gateway never gave it.
    { reason: 'STREAM_CUT_TASK_CONTINUES', domain: 'a2a-bridge', metadata: { taskId: 'someone-elses' } },
  ],
};

/** What each caller binding is expected to read, by scenario: its status (JSON-RPC code, HTTP status, gRPC status) and ErrorInfo. */
const EXPECTED = [
  {
    name: "an A2A error with the agent's own ErrorInfo",
    scripted: A2A_ERROR_WITH_AGENTS_OWN,
    status: { JSONRPC: -32004, 'HTTP+JSON': 400, GRPC: status.FAILED_PRECONDITION },
    infos: A2A_ERROR_WITH_AGENTS_OWN.infos,
  },
  {
    name: "the agent's own error, claims left out",
    scripted: AGENTS_OWN_ERROR,
    status: { JSONRPC: -32603, 'HTTP+JSON': 500, GRPC: status.INTERNAL },
    infos: [{ reason: 'QUOTA_EXCEEDED', domain: 'billing.example.com', metadata: { limit: '100', ledger: 'kept at [path]' } }],
  },
];

type Caller = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

interface Seen {
  status: number | undefined;
  infos: ErrorInfoJson[];
}

const infosOf = (details: unknown): ErrorInfoJson[] =>
  (Array.isArray(details) ? details : [])
    .filter((detail) => detail['@type'] === ERROR_INFO)
    .map(({ reason, domain, metadata }) => ({ reason, domain, metadata: metadata ?? {} }));

async function seenOverJsonRpc(gateway: TestGateway): Promise<Seen> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendMessageParams('hi') }),
  });
  const { error } = (await response.json()) as { error: { code: number; data?: unknown } };
  return { status: error.code, infos: infosOf(error.data) };
}

async function seenOverRest(gateway: TestGateway): Promise<Seen> {
  const response = await fetch(`${gateway.url}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify(sendMessageParams('hi')),
  });
  const { error } = (await response.json()) as { error: { details?: unknown } };
  return { status: response.status, infos: infosOf(error.details) };
}

async function seenOverGrpc(transport: Transport): Promise<Seen> {
  try {
    await transport.sendMessage(sendRequest('hi'), wire());
  } catch (error) {
    if (!isGrpcError(error)) throw error;
    const details = error.statusDetailsBin ? decodeStatus(error.statusDetailsBin).details : [];
    const infos = details.filter((any) => any.typeUrl === ERROR_INFO).map((any) => decodeErrorInfo(any.value));
    return { status: error.status, infos };
  }
  throw new Error('expected the call to fail');
}

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as AgentBinding[])('a 1.0 agent on %s answering with ErrorInfo of its own', (binding) => {
  let agent: ErrorInfoAgent;
  let gateway: TestGateway;
  let transport: Transport;
  const seenBy: Record<Caller, () => Promise<Seen>> = {
    JSONRPC: () => seenOverJsonRpc(gateway),
    'HTTP+JSON': () => seenOverRest(gateway),
    GRPC: () => seenOverGrpc(transport),
  };

  beforeAll(async () => {
    agent = await startErrorInfoAgent(binding);
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    transport = await grpcTransport(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  describe.each(EXPECTED)('$name', ({ scripted, status: statuses, infos }) => {
    it.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as Caller[])('reaches a caller on %s', async (caller) => {
      agent.fail(scripted);
      expect(await seenBy[caller]()).toEqual({ status: statuses[caller], infos });
    });
  });
});
