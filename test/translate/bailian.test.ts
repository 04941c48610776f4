import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../../src/model/index.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { V025StreamEvent, V025Task, type V025StreamEvent as Event025 } from '../../src/protocol/v025/index.js';
import {
  createV1ToV025StreamTranslator,
  nestExtensionMetadata,
  sendMessageResultToV025,
  taskResultToV025,
  withoutCommands,
} from '../../src/translate/index.js';

const bailian = loadMappingProfile('bailian');
const spec = loadMappingProfile('a2a-0.2.5');
const NOW = '2030-01-01T00:00:00.000Z';
const FLASH = { name: 'flash', params: [{ name: 'times', value: '3', normValue: '3' }], commandRequestId: 'cmd-1' };
const VOLUME = { name: 'volume', params: [{ name: 'level', value: 'up' }], commandRequestId: 'cmd-2' };

describe('Bailian extension metadata (inbound)', () => {
  it('moves every protocol and intent field under the key, intact, and keeps other keys', () => {
    const metadata = {
      user: { userId: 'u1' },
      device: { clientIp: '1.2.3.4', deviceId: 'd1' },
      location: { city: 'Hangzhou', longitude: '120.1', latitude: '30.2' },
      userDefinedParams: { p: 'v' },
      commandResults: [{ commandRequestId: 'c', result: 'ok' }],
      images: [{ type: 'url', value: 'https://img.example.com/a.png' }],
      chatId: 'chat-1',
      intentInfos: [{ intent: 'ai-calculate', slots: [{ name: 'num1', value: '1', normValue: '1' }] }],
      other: 1,
    };
    const { other, ...fields } = metadata;
    expect(nestExtensionMetadata(metadata, 'bailian')).toStrictEqual({ other, bailian: fields });
  });

  it('merges into an object already under the key and leaves metadata without fields untouched', () => {
    expect(nestExtensionMetadata({ chatId: 'c', ext: { a: 1 } }, 'ext')).toStrictEqual({ ext: { a: 1, chatId: 'c' } });
    const plain = { trace: 'x' };
    expect(nestExtensionMetadata(plain, 'bailian')).toBe(plain);
    expect(nestExtensionMetadata(undefined, 'bailian')).toBeUndefined();
  });

  it('withoutCommands removes both places and drops what becomes empty', () => {
    expect(withoutCommands({ commands: [FLASH], bailian: { commands: [VOLUME] } }, 'bailian')).toBeUndefined();
    expect(withoutCommands({ commands: [FLASH], bailian: { chatId: 'c', commands: [] }, k: 1 }, 'bailian')).toStrictEqual({
      bailian: { chatId: 'c' },
      k: 1,
    });
  });
});

describe('device commands on the stream (deviceCommands option)', () => {
  function run(events: StreamResponse[]): Event025[] {
    let n = 0;
    const t = createV1ToV025StreamTranslator({
      profile: bailian,
      upstreamMetadata: 'drop',
      newArtifactId: () => `gen-${++n}`,
      now: () => NOW,
      deviceCommands: { metadataKey: 'bailian' },
    });
    const out = [...events.flatMap((event) => t.push(event)), ...t.end()];
    for (const event of out) expect(V025StreamEvent.safeParse(event).success, JSON.stringify(event)).toBe(true);
    return out;
  }
  const task: StreamResponse = { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } };
  const chunk = (text: string, metadata?: Record<string, unknown>): StreamResponse => ({
    statusUpdate: {
      taskId: 'T',
      contextId: 'C',
      status: { state: 'TASK_STATE_WORKING', message: { messageId: 'M', role: 'ROLE_AGENT', parts: [{ text }] } },
      ...(metadata ? { metadata } : {}),
    },
  });
  const end = (metadata?: Record<string, unknown>): StreamResponse => ({
    statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED' }, ...(metadata ? { metadata } : {}) },
  });

  it('puts commands from status and artifact metadata, once each, on the lastChunk artifact-update only', () => {
    const out = run([
      task,
      chunk('Hello ', { commands: [FLASH] }),
      {
        artifactUpdate: {
          taskId: 'T',
          contextId: 'C',
          artifact: { artifactId: 'A', parts: [{ text: 'file' }], metadata: { commands: [FLASH], keep: true } },
          lastChunk: true,
        },
      },
      chunk('world'),
      end({ bailian: { commands: [VOLUME] } }),
    ]);
    const artifacts = out.filter((event) => event.kind === 'artifact-update');
    const withCommands = artifacts.filter((event) => event.artifact.metadata?.commands !== undefined);
    expect(withCommands).toHaveLength(1);
    expect(withCommands[0]).toBe(artifacts.at(-1));
    expect(withCommands[0]?.lastChunk).toBe(true);
    expect(withCommands[0]?.artifact.metadata).toStrictEqual({ commands: [FLASH, VOLUME] });
    expect(artifacts.find((event) => event.artifact.artifactId === 'A')?.artifact.metadata).toStrictEqual({ keep: true });
    expect(out.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  it('a turn without text gets an empty closing artifact carrying the commands', () => {
    const out = run([task, end({ commands: [FLASH] })]);
    expect(out.map((event) => event.kind)).toEqual(['task', 'artifact-update', 'status-update']);
    expect(out[1]).toMatchObject({ lastChunk: true, artifact: { parts: [{ kind: 'text', text: '' }], metadata: { commands: [FLASH] } } });
  });

  it('without commands the stream is unchanged', () => {
    const out = run([task, chunk('Hi'), end()]);
    expect(out.filter((event) => event.kind === 'artifact-update').every((event) => event.artifact.metadata === undefined)).toBe(true);
  });
});

describe('message/send results with device commands and direct messages', () => {
  const options = { now: () => NOW, newArtifactId: () => 'reply', deviceCommands: { metadataKey: 'bailian' } };
  const finished: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { messageId: 'M', role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] } },
    artifacts: [{ artifactId: 'A', parts: [{ text: 'x' }], metadata: { commands: [FLASH] } }],
    metadata: { bailian: { commands: [FLASH, VOLUME] } },
  };

  it('moves the commands onto the last artifact, deduplicated', () => {
    const result = taskResultToV025(finished, bailian, options);
    expect(V025Task.safeParse(result).success).toBe(true);
    expect(result.artifacts).toStrictEqual([
      { artifactId: 'reply', parts: [{ kind: 'text', text: 'Done.' }] },
      { artifactId: 'A', parts: [{ kind: 'text', text: 'x' }], metadata: { commands: [FLASH, VOLUME] } },
    ]);
  });

  it('adds an empty artifact when the answer has none', () => {
    const result = taskResultToV025({ id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' }, metadata: { commands: [FLASH] } }, bailian, options);
    expect(result.artifacts).toStrictEqual([{ artifactId: 'reply', parts: [{ kind: 'text', text: '' }], metadata: { commands: [FLASH] } }]);
  });

  it('a direct Message: a completed one-artifact task for bailian, a 0.2.5 Message for the plain profile', () => {
    const message = { messageId: 'M', role: 'ROLE_AGENT' as const, contextId: 'C', parts: [{ text: 'Hi' }, { data: { a: 1 } }] };
    const asTask = sendMessageResultToV025({ message }, bailian, { now: () => NOW, newArtifactId: () => 'gen' });
    expect(asTask).toStrictEqual({
      kind: 'task',
      id: 'gen',
      contextId: 'C',
      status: { state: 'completed', timestamp: NOW },
      artifacts: [
        { artifactId: 'gen', parts: [{ kind: 'text', text: 'Hi' }] },
        { artifactId: 'gen', parts: [{ kind: 'data', data: { a: 1 } }] },
      ],
    });
    expect(sendMessageResultToV025({ message }, spec)).toMatchObject({ kind: 'message', role: 'agent', contextId: 'C' });
    expect(sendMessageResultToV025({ task: finished }, spec, options)).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
  });
});
