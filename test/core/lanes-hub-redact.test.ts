import { describe, expect, it } from 'vitest';
import { contextBusyError } from '../../src/core/context-lanes.js';
import { createRedaction, REDACTED } from '../../src/core/redact.js';
import { createTaskEventHub } from '../../src/core/task-event-hub.js';
import { A2AError, type StreamResponse } from '../../src/model/index.js';
import { statusFrame, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { collect } from '../support/collect.js';

const { event: redactEvent, task: redactTask } = createRedaction();

// The lanes themselves: context-lanes.test.ts (memory and Redis).
describe('context lanes', () => {
  it('builds the busy error with the context id', () => {
    const error = contextBusyError('ctx-9');
    expect(error).toBeInstanceOf(A2AError);
    expect([error.code, error.message, error.metadata]).toEqual([
      -32602,
      'Context ctx-9 already has a turn in progress; retry when it has finished',
      { contextId: 'ctx-9' },
    ]);
  });
});

describe('redaction', () => {
  it('returns the very same object when there is nothing to redact', () => {
    const events: StreamResponse[] = [
      taskFrame('T', 'C', [userMessage({ metadata: { iac_code: { cwd: '/w' } } })]),
      statusFrame('T', 'C', 'TASK_STATE_WORKING', 'x'),
      { message: userMessage() },
      { artifactUpdate: { taskId: 'T', contextId: 'C', artifact: { artifactId: 'a', parts: [{ text: 'token: abc' }] } } },
    ];
    for (const event of events) expect(redactEvent(event)).toBe(event);
  });

  it('redacts pattern-matched keys at any depth of message metadata, also in status messages', () => {
    const message = userMessage({ metadata: { iac_code: { nested: { db_password: 'p', Credentials: { a: 1 } } }, myApiKey: 'k', plain: 'v' } });
    const redacted = redactTask({ id: 'T', status: { state: 'TASK_STATE_WORKING', message } });
    expect(redacted.status.message?.metadata).toEqual({
      iac_code: { nested: { db_password: REDACTED, Credentials: REDACTED } },
      myApiKey: REDACTED,
      plain: 'v',
    });
    expect(redactTask(redacted)).toBe(redacted);
    const update = redactEvent({ statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message } } });
    expect(JSON.stringify(update)).not.toContain('"p"');
  });
  it('keeps what only sounds like a secret: token counts, a tokenizer, a password policy, a flag', () => {
    const metadata = {
      usage: { inputTokens: 120, outputTokens: 57, totalTokens: 177 },
      maxTokens: 4096,
      tokenizer: 'cl100k',
      passwordPolicy: 'strong',
      credentialsNeeded: false,
      credentials: true,
      token_count: 3,
      tokenType: 'Bearer',
      secretName: 'db-admin',
      token_url: 'https://auth.example.com/oauth/token',
      api_key_id: 'key-42',
      secretary: 'Ms Li',
    };
    const message = { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'done' }], metadata };
    const event: StreamResponse = { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', message } } };
    expect(redactEvent(event)).toBe(event);
  });

  it('redacts values under names that end in a secret, however they are written', () => {
    const metadata = {
      'X-API-Key': 'k1',
      APIKey: 'k2',
      sessionToken: 't1',
      refresh_token: 't2',
      passwordHash: 'h',
      client_secret: 's',
      privateKey: 'pk',
      access_key: 'ak',
      authorization: 'Bearer x',
      pin: { password: 1234 },
      tokens: ['ghp_abc', 'sk-xyz'],
      api_keys: ['k1'],
      refreshTokens: ['r1'],
      password2: 'p2',
      api_key_v2: 'k2',
      dbpassword: 'p3',
      myapikey: 'k3',
      secretkey: 's2',
      password_confirmation: 'p4',
      tokenEncrypted: 't3',
      GOOGLE_APPLICATION_CREDENTIALS_JSON: '{}',
      secret_key_base: 's3',
    };
    const message = { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'done' }], metadata };
    const redacted = redactTask({ id: 'T', status: { state: 'TASK_STATE_COMPLETED', message } });
    expect(redacted.status.message?.metadata).toEqual({
      'X-API-Key': REDACTED,
      APIKey: REDACTED,
      sessionToken: REDACTED,
      refresh_token: REDACTED,
      passwordHash: REDACTED,
      client_secret: REDACTED,
      privateKey: REDACTED,
      access_key: REDACTED,
      authorization: REDACTED,
      pin: { password: REDACTED },
      tokens: REDACTED,
      api_keys: REDACTED,
      refreshTokens: REDACTED,
      password2: REDACTED,
      api_key_v2: REDACTED,
      dbpassword: REDACTED,
      myapikey: REDACTED,
      secretkey: REDACTED,
      password_confirmation: REDACTED,
      tokenEncrypted: REDACTED,
      GOOGLE_APPLICATION_CREDENTIALS_JSON: REDACTED,
      secret_key_base: REDACTED,
    });
  });
});

describe("a status message that explains its state (a failure's reason)", () => {
  const leaky =
    'RuntimeError: failed to read /home/alice/.iac-code/x.json with Bearer sk-live-0123456789abcdef\n' +
    'Traceback (most recent call last):\n  File "/usr/lib/python3.11/x.py", line 12, in run\n';
  const clean = 'RuntimeError: failed to read [path] with Bearer [redacted]';
  const message = (text: string) => ({ messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text }] });
  const redaction = createRedaction();

  it('is scrubbed as an agent error message is, in a streamed update and in a task', () => {
    for (const state of ['TASK_STATE_FAILED', 'TASK_STATE_REJECTED'] as const) {
      const update: StreamResponse = { statusUpdate: { taskId: 't', contextId: 'c', status: { state, message: message(leaky) } } };
      expect(redaction.event(update)).toMatchObject({ statusUpdate: { status: { state, message: { parts: [{ text: clean }] } } } });
      expect(redaction.task({ id: 't', contextId: 'c', status: { state, message: message(leaky) } }).status.message?.parts).toEqual([
        { text: clean },
      ]);
    }
  });

  it("is scrubbed in the task's history too, where the agent keeps it; the turn's other messages are left as they are", () => {
    const asked = { messageId: 'u', role: 'ROLE_USER' as const, parts: [{ text: 'Read /home/alice/x.json' }] };
    const said = { messageId: 'w', role: 'ROLE_AGENT' as const, parts: [{ text: 'Reading /home/alice/x.json' }] };
    const failed = redaction.task({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_FAILED', message: message(leaky) },
      history: [asked, said, message(leaky)],
    });
    expect(failed.history).toEqual([asked, said, message(clean)]);
    expect(JSON.stringify(failed)).not.toMatch(/sk-live|\/home\/alice\/\.iac-code|Traceback/);
  });

  it("the gateway's own credentials for the agent are not repeated", () => {
    const withKey = createRedaction([], ['upstream-key-0123']);
    const update: StreamResponse = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_FAILED', message: message('key upstream-key-0123 was refused') } },
    };
    expect(withKey.event(update)).toMatchObject({ statusUpdate: { status: { message: { parts: [{ text: 'key [redacted] was refused' }] } } } });
  });

  it("an answer's, an auth prompt's or a cancellation's words are the agent's to the user: left as they are", () => {
    const signIn = 'Sign in: https://login.example.com/authorize?redirect_uri=/cb/done&state=' + 'x'.repeat(600);
    const prompt: StreamResponse = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_AUTH_REQUIRED', message: message(signIn) } },
    };
    expect(redaction.event(prompt)).toBe(prompt);
    const canceled: StreamResponse = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELED', message: message('Canceled by /home/alice') } },
    };
    expect(redaction.event(canceled)).toBe(canceled);
  });

  it("an answer's words are the agent's: a path in them stays, and the object is the same", () => {
    const answered: StreamResponse = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED', message: message('Wrote /home/alice/main.tf') } },
    };
    expect(redaction.event(answered)).toBe(answered);
  });
});

describe('task event hub', () => {
  it('delivers events published after subscribing, ends on a turn-ending state or end()', async () => {
    const hub = createTaskEventHub();
    const a = hub.subscribe('T');
    const b = hub.subscribe('T');
    const other = hub.subscribe('U');
    hub.publish(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    hub.publish(statusFrame('U', 'C', 'TASK_STATE_WORKING'));
    hub.publish(statusFrame('T', 'C', 'TASK_STATE_COMPLETED'));
    hub.publish(statusFrame('T', 'C', 'TASK_STATE_WORKING')); // after the end: nobody listens
    expect((await collect(a)).length).toBe(2);
    expect((await collect(b)).length).toBe(2);
    hub.end('U');
    expect((await collect(other)).length).toBe(1);
    expect(hub.subscriberCount('T') + hub.subscriberCount('U')).toBe(0);
  });

  it('ends a subscription on abort', async () => {
    const hub = createTaskEventHub();
    const abort = new AbortController();
    const events = collect(hub.subscribe('T', abort.signal));
    hub.publish(statusFrame('T', 'C', 'TASK_STATE_WORKING'));
    abort.abort();
    expect(await events).toHaveLength(1);
    expect(hub.subscriberCount('T')).toBe(0);
  });
});
