/**
 * tasks/cancel answers with the task as tasks/get shows it: under `bailian` the reply in one artifact with the
 * cancel's reason in it ("Canceled by request."), which a Bailian reader, reading artifacts alone, would otherwise
 * never see (the agent's own task holds the reply in pieces and the reason on its status). The official 0.2.5
 * client against an a2a-js 1.x agent; a task the caller named itself answers by its id.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect } from '../../support/collect.js';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { SDK_CANCELED_TEXT } from '../../support/sdk-v1-agent.js';
import { userMessage } from '../../support/facade.js';

const artifactsText = (task: any): string =>
  (task.artifacts ?? [])
    .flatMap((artifact: any) => artifact.parts)
    .map((part: any) => (part.kind === 'text' ? part.text : ''))
    .join('');

describe.each(['bailian', 'a2a-0.2.5'] as const)('tasks/cancel of a running turn, profile %s', (profile) => {
  let gateway: TestGateway;
  let client: A2AClient;
  beforeAll(async () => {
    gateway = await startSdkGateway({ bailian: { profile }, 'keepalive-ms': 0 }, { slowChunkDelayMs: 150 });
    client = new A2AClient(gateway.url);
  });
  afterAll(() => gateway.close());

  /** Cancels a turn a few chunks in; the cancel's answer and tasks/get's, once the stream ended. */
  async function cancelMidTurn(taskId?: string): Promise<{ canceled: any; got: any; id: string }> {
    const stream = client.sendMessageStream({ message: userMessage({ text: 'slow: count', ...(taskId ? { taskId } : {}) }) as any });
    const head: any = (await stream.next()).value;
    await sleep(400);
    const canceled: any = await client.cancelTask({ id: head.id });
    await collect(stream);
    const got: any = await client.getTask({ id: head.id });
    return { canceled, got, id: head.id };
  }

  it('answers as tasks/get does, the whole task alike', async () => {
    const { canceled, got } = await cancelMidTurn();
    expect(canceled.error).toBeUndefined();
    expect(canceled.result).toEqual(got.result);
  });

  if (profile === 'bailian') {
    it("the reply and the cancel's reason in one artifact, the state failed", async () => {
      const { canceled } = await cancelMidTurn();
      expect(canceled.result.status.state).toBe('failed');
      expect(canceled.result.artifacts).toHaveLength(1);
      expect(artifactsText(canceled.result)).toMatch(new RegExp(`\\n${SDK_CANCELED_TEXT.replace('.', '\\.')}$`));
    });
  }

  it('a task the caller named itself: answered by its id, as tasks/get does', async () => {
    const taskId = `cancel-own-${randomUUID()}`;
    const { canceled, got, id } = await cancelMidTurn(taskId);
    expect(id).toBe(taskId);
    expect(canceled.result.id).toBe(taskId);
    expect(canceled.result).toEqual(got.result);
  });
});
