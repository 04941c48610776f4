import { describe, expect, it } from 'vitest';
import { nestExtensionMetadata, withoutCommands } from '../../../src/translate/index.js';

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
