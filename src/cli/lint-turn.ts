import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import { readSse } from '../upstream/sse-reader.js';
import type { RuleResult } from './lint-card.js';
import { isCredentialsRefused } from './exit-codes.js';
import { withFields } from '../model/index.js';

export interface TurnLintOptions {
  dispatcher: Dispatcher;
  /** Headers Bailian would send (X-API-KEY) plus the operator's. */
  headers: Record<string, string>;
  apiKey?: string;
  timeoutMs: number;
  text: string;
}

const BAILIAN_STATES = new Set(['submitted', 'working', 'completed', 'failed', 'input-required', 'rejected']);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A message/send or message/stream body as Bailian sends it. */
function bailianCall(method: string, text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: randomUUID(),
    method,
    params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }] } },
  });
}

function post(url: string, body: string, options: TurnLintOptions, headers: Record<string, string>) {
  return request(url, {
    dispatcher: options.dispatcher,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(options.timeoutMs),
  });
}

const textOfArtifact = (artifact: unknown): string =>
  isRecord(artifact) && Array.isArray(artifact.parts)
    ? artifact.parts.map((part) => (isRecord(part) && part.kind === 'text' && typeof part.text === 'string' ? part.text : '')).join('')
    : '';

/**
 * The agent refused the test turn's credentials: its stream is not at fault, the key is (or its absence), so
 * the fix names the flag that sends one and the gateway settings that hold the keys it takes.
 */
function refusedTurn(request: string, status: number, keyGiven: boolean): RuleResult {
  return {
    rule: 'stream-answers',
    ok: false,
    credentialsRefused: true,
    detail: `${request} answered HTTP ${status}: the agent refused the credentials (${keyGiven ? 'the --api-key given' : 'no --api-key given'})`,
    fix: keyGiven
      ? 'pass the key the agent takes with --api-key (on the gateway: bailian.api-key or bailian.api-keys, env A2A_BRIDGE_BAILIAN__API_KEY); --header for another credential'
      : 'the agent wants a key: pass the one you will enter in Bailian with --api-key (on the gateway: bailian.api-key or bailian.api-keys)',
  };
}

/** A test `message/stream` turn at `url/stream`, checked the way Bailian reads it. */
export async function lintStreamTurn(url: string, options: TurnLintOptions): Promise<RuleResult[]> {
  const endpoint = `${url}/stream`;
  const response = await post(
    endpoint,
    bailianCall('message/stream', options.text),
    options,
    withFields(options.headers, { accept: 'text/event-stream' }),
  );
  const type = String(response.headers['content-type'] ?? '');
  if (isCredentialsRefused(response.statusCode)) {
    await response.body.text().catch(() => '');
    return [refusedTurn(`POST ${endpoint}`, response.statusCode, options.apiKey !== undefined)];
  }
  if (response.statusCode !== 200 || !type.startsWith('text/event-stream')) {
    await response.body.text().catch(() => '');
    return [
      {
        rule: 'stream-answers',
        ok: false,
        detail: `POST ${endpoint} answered HTTP ${response.statusCode} ${type || 'without a content type'}`,
        fix: "answer message/stream at the card url + /stream with text/event-stream (the gateway's facade does)",
      },
    ];
  }
  const results: RuleResult[] = [{ rule: 'stream-answers', ok: true, detail: `POST ${endpoint} streams text/event-stream` }];
  const kinds: string[] = [];
  const bad: string[] = [];
  let last: Record<string, unknown> | undefined;
  let text = '';
  for await (const frame of readSse(response.body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(frame.data);
    } catch {
      bad.push('a frame is not JSON');
      continue;
    }
    const result = isRecord(parsed) ? parsed.result : undefined;
    if (!isRecord(parsed) || parsed.jsonrpc !== '2.0' || !isRecord(result)) {
      bad.push(isRecord(parsed) && parsed.error ? `an error frame ${JSON.stringify(parsed.error)}` : 'a frame is not a JSON-RPC result');
      continue;
    }
    kinds.push(String(result.kind));
    if (!['task', 'status-update', 'artifact-update'].includes(String(result.kind))) bad.push(`an event of kind ${JSON.stringify(result.kind)}`);
    if (result.kind === 'artifact-update') text += textOfArtifact(result.artifact);
    last = result;
  }
  results.push(
    bad.length === 0 && kinds.length > 0
      ? { rule: 'stream-events', ok: true, detail: `${kinds.length} events: ${[...new Set(kinds)].join(', ')}` }
      : {
          rule: 'stream-events',
          ok: false,
          detail: bad.length ? bad.join('; ') : 'no events',
          fix: 'every frame must be a JSON-RPC result whose kind is task, status-update or artifact-update (never a bare message)',
        },
  );
  const state = isRecord(last?.status) ? String(last.status.state) : undefined;
  results.push(
    last?.kind === 'status-update' && last.final === true && state && BAILIAN_STATES.has(state)
      ? { rule: 'stream-final', ok: true, detail: `ends with a final status-update (${state})` }
      : {
          rule: 'stream-final',
          ok: false,
          detail: `the last event is ${last ? `${String(last.kind)}${last.final === true ? '' : ' without final: true'}${state ? ` (${state})` : ''}` : 'missing'}`,
          fix: `end the stream with a status-update, final: true, in one of ${[...BAILIAN_STATES].join(', ')}`,
        },
  );
  results.push(
    text.trim() !== ''
      ? { rule: 'stream-text', ok: true, detail: `the reply reaches the user as artifact text (${text.length} characters)` }
      : {
          rule: 'stream-text',
          ok: false,
          detail: 'no text/plain artifact text in the stream',
          fix: 'Bailian shows artifacts only, not status messages: send the reply as text parts of artifact-updates (the bailian profile does)',
        },
  );
  return results;
}

/** With a key: a call without it must be refused, or anyone who finds the url can use the agent. */
export async function lintKeyEnforced(url: string, options: TurnLintOptions): Promise<RuleResult> {
  const headers = Object.fromEntries(Object.entries(options.headers).filter(([name]) => name.toLowerCase() !== 'x-api-key'));
  const response = await post(url, bailianCall('message/send', options.text), options, headers);
  const body = await response.body.text().catch(() => '');
  let refused = isCredentialsRefused(response.statusCode);
  if (!refused && response.statusCode === 200) {
    try {
      refused = isRecord(JSON.parse(body)) && 'error' in (JSON.parse(body) as object);
    } catch {
      refused = false;
    }
  }
  return refused
    ? { rule: 'api-key-enforced', ok: true, detail: `a call without X-API-KEY is refused (HTTP ${response.statusCode})` }
    : {
        rule: 'api-key-enforced',
        ok: false,
        detail: `a call without X-API-KEY was answered (HTTP ${response.statusCode})`,
        fix: 'require the key on every call (the gateway: bailian.api-key)',
      };
}
