import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A2AError, parseParams } from '../../../src/model/index.js';
import { isWellFormedV025SendParams, parseV025SendParams, V025MessageSendParams } from '../../../src/protocol/v025/index.js';

const message = { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: 'hi from bailian' }] };
/** What Bailian and other 0.2.5 callers send on a turn (text and data parts, a context, Bailian's metadata, a plain configuration). */
const SAMPLES: unknown[] = [
  { message },
  {
    message: {
      ...message,
      contextId: 'c-1',
      taskId: 't-1',
      parts: [
        { kind: 'text', text: '建一个 VPC', metadata: { a: 1 } },
        { kind: 'data', data: { decision: 'allow_once' } },
      ],
      referenceTaskIds: ['t-0'],
      extensions: ['https://x/ext'],
      metadata: { bailian: { images: [] } },
      extra: 'kept',
    },
    configuration: { acceptedOutputModes: ['text'], historyLength: 3, blocking: false, extra: 1 },
    metadata: { trace: 'on' },
  },
];

/** Params zod must judge itself: it rewrites them, or names what is wrong in them. */
const LEFT_TO_ZOD: Array<[string, unknown]> = [
  ['a file part', { message: { ...message, parts: [{ kind: 'file', file: { uri: 'https://x/y.png', mimeType: 'image/png' } }] } }],
  ['a file part with uri and 0.1 data', { message: { ...message, parts: [{ kind: 'file', file: { uri: 'https://x/y', data: 'AAAA' } }] } }],
  ['a 0.1 part (type, not kind)', { message: { ...message, parts: [{ type: 'text', text: 'hi' }] } }],
  ['a push config', { message, configuration: { pushNotificationConfig: { url: 'https://hooks.example/a' } } }],
  ['a bad push config', { message, configuration: { pushNotificationConfig: { url: 'not a url' } } }],
  ['no message', {}],
  ['no params', undefined],
  ['no kind', { message: { ...message, kind: undefined } }],
  ['an empty messageId', { message: { ...message, messageId: '' } }],
  ['an unknown role', { message: { ...message, role: 'system' } }],
  ['no parts', { message: { ...message, parts: [] } }],
  ['a part of an unknown kind', { message: { ...message, parts: [{ kind: 'image', text: 'x' }] } }],
  ['a text part without text', { message: { ...message, parts: [{ kind: 'text' }] } }],
  ['data not an object', { message: { ...message, parts: [{ kind: 'data', data: [1] }] } }],
  ['a numeric contextId', { message: { ...message, contextId: 7 } }],
  ['metadata an array', { message: { ...message, metadata: [] } }],
  ['historyLength past a safe integer', { message, configuration: { historyLength: 2 ** 53 } }],
  ['historyLength a fraction', { message, configuration: { historyLength: 1.5 } }],
  ['blocking a string', { message, configuration: { blocking: 'no' } }],
];

/** The error a caller reads for `params`, or the params as the facade takes them. */
function outcome(parse: (value: unknown) => unknown, params: unknown): unknown {
  try {
    return { taken: parse(params) };
  } catch (error) {
    return error instanceof A2AError ? { refused: error.message, code: error.code, violations: error.violations } : { thrown: String(error) };
  }
}

const FIELD = fc.oneof(
  fc.constantFrom('kind', 'messageId', 'role', 'parts', 'text', 'data', 'contextId', 'taskId', 'metadata', 'historyLength', 'blocking', '__proto__'),
  fc.string(),
);
const VALUE = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, [], {}, -1, 'message', 'text', 'data', 'user', { a: 1 }));

/** One field somewhere inside `target` (walking `path`) overwritten with `replacement`, as JSON would carry it. */
function mutate(target: unknown, path: number[], key: string, replacement: unknown): unknown {
  if (typeof target !== 'object' || target === null) return target;
  const copy: Record<string, unknown> = Array.isArray(target) ? ([...target] as unknown as Record<string, unknown>) : { ...target };
  const keys = Object.keys(copy);
  if (path.length === 0 || keys.length === 0) {
    if (Array.isArray(copy)) return copy;
    Object.defineProperty(copy, key, { value: replacement, enumerable: true, writable: true, configurable: true });
    return copy;
  }
  const [head, ...rest] = path;
  const at = keys[head! % keys.length]!;
  copy[at] = mutate(copy[at], rest, key, replacement);
  return copy;
}

describe("a 0.2.5 caller's message/send params, checked without zod when well-formed", () => {
  it.each(SAMPLES.map((sample, at) => [at, sample]))('takes sample %s as it is, as zod takes it', (_, sample) => {
    expect(isWellFormedV025SendParams(sample)).toBe(true);
    expect(parseV025SendParams(sample)).toBe(sample);
    expect(V025MessageSendParams.parse(sample)).toEqual(sample);
  });

  it.each(LEFT_TO_ZOD)('leaves %s to zod: the caller reads what zod says', (_, params) => {
    expect(isWellFormedV025SendParams(params)).toBe(false);
    expect(outcome(parseV025SendParams, params)).toEqual(outcome((value) => parseParams(V025MessageSendParams, value), params));
  });

  it('leaves an object with an own __proto__ key to zod, which drops it: the agent is sent what it was sent before', () => {
    const params = JSON.parse(
      '{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"x"}],"metadata":{"__proto__":{"b":2},"k":1}}}',
    );
    expect(isWellFormedV025SendParams(params)).toBe(false);
    expect(JSON.stringify(parseV025SendParams(params))).toBe(JSON.stringify(parseParams(V025MessageSendParams, params)));
  });

  it('gives every caller the same answer zod gives (params, or the error naming the field)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.array(fc.nat(), { maxLength: 5 }), FIELD, VALUE, (sample, path, key, replacement) => {
        const params = JSON.parse(JSON.stringify(mutate(sample, path, key, replacement)) ?? 'null') as unknown;
        const fast = outcome(parseV025SendParams, params);
        const zod = outcome((value) => parseParams(V025MessageSendParams, value), params);
        expect(fast).toEqual(zod);
      }),
      { numRuns: 3_000 },
    );
  });
});
