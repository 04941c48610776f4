/**
 * What the bad-input files send: the gateway they send it to (embedded demo agent, gateway auth, a
 * Bailian key and upstream credentials configured, so there are secrets to leak), valid requests to
 * mutate, and the hostile names and ids.
 */
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { API_KEY, SECRETS, TOKEN, exchange, type Exchange } from './support.js';

export const UPSTREAM_SECRET = 'hardening-upstream-token-77c0b3';
export const ALL_SECRETS = [...SECRETS, UPSTREAM_SECRET];

export function startHardenedGateway(): Promise<TestGateway> {
  return startTestGateway({
    auth: { token: TOKEN },
    bailian: { 'api-key': API_KEY },
    upstream: { auth: { token: UPSTREAM_SECRET } },
  });
}

export const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
export const HOSTILE_IDS = [
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  'a\r\nSet-Cookie: x=1',
  'tâsk-✓-任务',
  '\u0000',
  '😀'.repeat(3),
  'x'.repeat(129),
  'x'.repeat(128),
  '',
  ' ',
  ...PROTOTYPE_NAMES,
  '%00',
  '<script>alert(1)</script>',
  '\ud800',
  'a/b',
  'a?b=c',
  'a#b',
  '${jndi:ldap://x}',
];

export const v1Message = {
  message: {
    messageId: 'm-hardening',
    role: 'ROLE_USER',
    parts: [{ text: 'hello' }, { data: { a: [1, { b: 'c' }] }, mediaType: 'application/json' }],
    contextId: 'ctx-hardening',
    metadata: { key: 'value' },
  },
  configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2, returnImmediately: false },
  metadata: { trace: 'x' },
};

export const v025Message = {
  message: {
    kind: 'message',
    role: 'user',
    messageId: 'm-hardening',
    parts: [{ kind: 'text', text: 'hello' }],
    contextId: 'ctx-hardening-025',
    metadata: { key: 'value' },
  },
  configuration: { acceptedOutputModes: ['text'], blocking: true },
};

export const envelope = (method: string, params: unknown): Record<string, unknown> => ({ jsonrpc: '2.0', id: 'req-1', method, params });

/** POST `body` (sent as is) to `baseUrl + path` as JSON with `headers`. */
export function post(baseUrl: string, path: string, body: NonNullable<RequestInit['body']>, headers: Record<string, string>): Promise<Exchange> {
  return exchange(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}
