/**
 * What a Bailian user READS, in both modes, in front of real a2a-js 1.x agents that behave like real
 * agents (test/support/sdk-v1-scripted-agents.ts): every word the agent said appears, once, and
 * message/send shows exactly what message/stream shows. Read through the official a2a-js 0.2.5 client
 * and as Bailian reads it (raw JSON-RPC at the card's url and url + "/stream").
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import {
  ASK_ARTIFACT,
  ASK_QUESTION,
  ASK_WORKING,
  DIRECT_TEXT,
  FAIL_REASON,
  FAIL_WORKING,
  FILES_BINARY,
  FILES_DONE,
  FILES_NOTE,
  FILES_URL,
  startScriptedAgent,
  type RunningScriptedAgent,
} from '../../support/sdk-v1-scripted-agents.js';
import { collect, openStream, results, rpc, sdkParams, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** What each script's turn reads like to a Bailian user (bailian profile: one reply, every part as text). */
const EXPECTED: Record<string, { text: string; state: string; words: string[] }> = {
  ask: {
    text: `${ASK_WORKING.join('')}\n${ASK_ARTIFACT.join('')}\n${ASK_QUESTION}`,
    // Not iac-code: its INPUT_REQUIRED asks, and Bailian must route the answer back to it.
    state: 'input-required',
    words: [...ASK_WORKING, ...ASK_ARTIFACT, ASK_QUESTION],
  },
  direct: { text: DIRECT_TEXT, state: 'completed', words: [DIRECT_TEXT] },
  files: {
    text: [
      `notes.txt\n\`\`\`\n${FILES_NOTE}\`\`\``,
      'diagram.png (image/png, 8 bytes)',
      '```json\n{\n  "region": "cn-hangzhou",\n  "vpcs": 3\n}\n```',
      `vpc.pdf: ${FILES_URL}`,
      FILES_DONE,
    ].join('\n'),
    state: 'completed',
    words: [FILES_NOTE, FILES_URL, FILES_DONE, '"region": "cn-hangzhou"'],
  },
  fail: { text: `${FAIL_WORKING}\n${FAIL_REASON}`, state: 'failed', words: [FAIL_WORKING, FAIL_REASON] },
};

function expectAllText(events: any[]): void {
  for (const event of events) {
    const parts = [...(event.artifact?.parts ?? []), ...(event.parts ?? []), ...(event.artifacts ?? []).flatMap((a: any) => a.parts)];
    for (const part of parts) expect(part.kind).toBe('text');
  }
}

describe('a Bailian user in front of a2a-js 1.x agents (bailian profile)', () => {
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  for (const [script, expected] of Object.entries(EXPECTED)) {
    it(`${script}: every word once, the same text in message/send and message/stream (a2a-js 0.2.5 client)`, async () => {
      const events = await collect(client.sendMessageStream(sdkParams(script)));
      const streamed = streamedText(events);
      expect(streamed).toBe(expected.text);
      for (const word of expected.words) expect(occurrences(streamed, word), word).toBe(1);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: expected.state } });
      expectAllText(events);

      const sent: any = await client.sendMessage(sdkParams(script));
      expect(sent.error).toBeUndefined();
      expect(sent.result).toMatchObject({ kind: 'task', status: { state: expected.state } });
      expect(sentText(sent.result)).toBe(streamed);
      expect(sent.result.artifacts).toHaveLength(1);
      expectAllText([sent.result]);
    });

    it(`${script}: the same as Bailian reads it (raw JSON-RPC at url and url + "/stream")`, async () => {
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: script }) });
      const events = results(await stream.rest());
      const replyIds = new Set(events.filter((event) => event.kind === 'artifact-update').map((event) => event.artifact.artifactId));
      expect(replyIds.size).toBe(1);
      expect(streamedText(events)).toBe(expected.text);
      const chunks = events.filter((event) => event.kind === 'artifact-update');
      expect(chunks.every((event) => event.append === true)).toBe(true);
      expect(chunks.filter((event) => event.lastChunk)).toEqual([chunks.at(-1)]);
      expect(events.at(-2)).toBe(chunks.at(-1));
      const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: script }) });
      expect(sentText(sent.body.result)).toBe(expected.text);
    });
  }

  it('files: no byte of the binary file reaches the user', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('files')));
    const all = JSON.stringify(events);
    expect(all).not.toContain(FILES_BINARY.toString('base64'));
  });
});

describe('a plain 0.2.5 caller in front of the same agents (a2a-0.2.5 profile: native parts, own artifacts)', () => {
  let agent: RunningScriptedAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { profile: 'a2a-0.2.5' } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  it('files keep their kind and the artifact its identity; send and stream agree', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('files')));
    const outputs = events.filter((event) => event.kind === 'artifact-update' && event.artifact.artifactId === 'outputs');
    expect(outputs).toHaveLength(1);
    expect(outputs[0].artifact.parts.map((part: any) => part.kind)).toEqual(['file', 'file', 'data', 'file']);
    expect(Buffer.from(outputs[0].artifact.parts[0].file.bytes, 'base64').toString()).toBe(FILES_NOTE);
    const sent: any = await client.sendMessage(sdkParams('files'));
    const sentOutputs = sent.result.artifacts.find((artifact: any) => artifact.artifactId === 'outputs');
    expect(sentOutputs.parts).toEqual(outputs[0].artifact.parts);
  });

  it('ask: the question ends the turn in input-required, and is read once', async () => {
    const events = await collect(client.sendMessageStream(sdkParams('ask')));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    const all = events
      .flatMap((event) => [...(event.artifact?.parts ?? []), ...(event.status?.message?.parts ?? [])])
      .map((part: any) => part.text ?? '')
      .join('');
    expect(occurrences(all, ASK_QUESTION)).toBe(1);
    expect(occurrences(all, ASK_ARTIFACT[1] ?? '')).toBe(1);
  });

  it('fail: the reason stays on the failed status, where a 0.2.5 client reads it', async () => {
    const sent: any = await client.sendMessage(sdkParams('fail'));
    expect(sent.result.status).toMatchObject({ state: 'failed', message: { parts: [{ kind: 'text', text: FAIL_REASON }] } });
    expect(sentText(sent.result)).toBe(FAIL_WORKING);
  });
});
