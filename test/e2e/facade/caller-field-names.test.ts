/**
 * A 0.2.5 caller's mistake is told in its own fields: a file part whose `file.bytes` is not base64 is refused
 * naming `message.parts.N.file.bytes`, the field it sent, not the 1.0 `raw` the facade would make of it. What the
 * official 0.2.5 client reports, on message/send and message/stream.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { describe, expect, it } from 'vitest';
import { fakeIacCodeBehindGateway } from '../../support/facade.js';

const withBadFile = () =>
  ({
    message: {
      kind: 'message',
      role: 'user',
      messageId: `m-${Math.random()}`,
      parts: [
        { kind: 'text', text: '看看这个文件' },
        { kind: 'file', file: { bytes: '***', mimeType: 'application/pdf', name: 'a.pdf' } },
      ],
    },
  }) as never;

const REFUSAL = 'Invalid params: message.parts.1.file.bytes: not base64';

describe("a file part whose bytes do not decode, told in the caller's fields", () => {
  const running = fakeIacCodeBehindGateway();

  it('message/send: -32602 naming message.parts.1.file.bytes', async () => {
    const answer: any = await new A2AClient(running.gateway.url).sendMessage(withBadFile());
    expect(answer.error).toEqual({ code: -32602, message: REFUSAL });
  });

  it('message/stream: the client reports the same words', async () => {
    const stream = new A2AClient(running.gateway.url).sendMessageStream(withBadFile());
    await expect(stream.next()).rejects.toThrow(REFUSAL);
  });
});
