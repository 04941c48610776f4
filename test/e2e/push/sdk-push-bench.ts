/**
 * The set-up of the push tests that drive one real a2a-js 1.x agent: a gateway with gateway-owned push (private
 * webhook addresses allowed, a persistence folder of its own) in front of the agent, and a webhook receiver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentExecutor } from 'a2a-sdk-1/server';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkTestAgent, type TestAgentCardSpec } from '../../support/sdk-v1-agent-kit.js';
import { Receiver } from './harness.js';

export interface SdkPushBench {
  gateway: TestGateway;
  receiver: Receiver;
  close(): Promise<void>;
}

/** `config`: gateway settings over the push defaults here (`push-events`, say). */
export async function startSdkPushBench(
  card: TestAgentCardSpec,
  executor: AgentExecutor,
  config: Record<string, unknown> = {},
): Promise<SdkPushBench> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-push-sdk-'));
  const closing: Array<() => Promise<void>> = [async () => rmSync(dir, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const step of closing.splice(0).reverse()) await step();
  };
  try {
    const receiver = await new Receiver().up();
    closing.push(() => receiver.down());
    const agent = await startSdkTestAgent(card, executor);
    closing.push(() => agent.close());
    const gateway = await startTestGateway({
      upstream: { url: agent.url },
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
      ...config,
    });
    closing.push(() => gateway.close());
    return { gateway, receiver, close };
  } catch (error) {
    await close();
    throw error;
  }
}
