/**
 * A Bailian caller that does not wait for its turn (`configuration.blocking: false`) is answered with the task
 * as it stands and reads the reply later with tasks/get (docs/facade-reply.md). What it reads there must be what
 * message/send shows for the same prompt: the reply artifact of text, not the agent's task as it is (its status
 * messages, a file with its bytes, a data part the Bailian UI cannot render). The official 0.2.5 client in front
 * of a real a2a-js 1.x agent that answers in status messages of their own ids, a file and a data part.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { sdkParams, sentText, startFacadeGateway } from '../../support/facade.js';
import { part, startSdkTestAgent, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { waitUntil } from '../../support/wait-until.js';

const FILE_TEXT = '# Quota\nvCPU: 12 of 20\n';

/** The agent's turn: two progress messages, a report file and its figures as data, a pause (`pausing`), its answer. */
class ReportingAgent implements AgentExecutor {
  pausing: Promise<void> = Promise.resolve();
  paused = false;

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { opening, status, artifact } = turnEvents(request);
    const publish = (event: AgentExecutionEvent): void => bus.publish(event);
    publish(opening());
    publish(status(TaskState.TASK_STATE_WORKING, 'Looking up the quota of cn-hangzhou.'));
    publish(status(TaskState.TASK_STATE_WORKING, '正在核对可用区。'));
    const file = part({ $case: 'raw', value: Buffer.from(FILE_TEXT) }, { filename: 'quota.md', mediaType: 'text/markdown' });
    const figures = part({ $case: 'data', value: { vcpu: { used: 12, limit: 20 } } }, { mediaType: 'application/json' });
    publish(artifact('report', [file, figures], false, true));
    this.paused = true;
    await this.pausing;
    this.paused = false;
    publish(status(TaskState.TASK_STATE_COMPLETED, 'You can start 8 more vCPUs in cn-hangzhou.'));
    bus.finished();
  };

  cancelTask = async (): Promise<void> => undefined;
}

describe('blocking:false, then tasks/get (bailian profile, official 0.2.5 client, a2a-js 1.x agent)', () => {
  const executor = new ReportingAgent();
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startSdkTestAgent(
      { name: 'Reporting agent', description: 'Reports a quota.', skill: { id: 'report', name: 'Report', description: 'Any prompt.' } },
      executor,
    );
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('polls the reply message/send shows for the same prompt: growing while the agent works, whole once it completed', async () => {
    const sent: any = await client.sendMessage(sdkParams('How much quota is left?'));
    expect(sent.result.status.state).toBe('completed');
    const shown = sentText(sent.result);
    expect(shown).toContain('Looking up the quota of cn-hangzhou.');
    expect(shown).toContain(FILE_TEXT.trim());
    expect(shown).toContain('You can start 8 more vCPUs in cn-hangzhou.');

    let release = (): void => undefined;
    executor.pausing = new Promise((resolve) => (release = resolve));
    const params = sdkParams('How much quota is left?');
    const started: any = await client.sendMessage({ ...params, configuration: { blocking: false, acceptedOutputModes: ['text/plain'] } });
    expect(['submitted', 'working']).toContain(started.result.status.state);
    const id: string = started.result.id;

    // While the agent works: what it said so far, as the reply shows it (files and data as text), not its task as it is.
    await waitUntil(async () => executor.paused);
    let working: any;
    await waitUntil(async () => {
      working = ((await client.getTask({ id })) as any).result;
      return sentText(working).includes('"limit"');
    });
    expect(working).toMatchObject({ kind: 'task', id, contextId: started.result.contextId, status: { state: 'working' } });
    expect(shown.startsWith(sentText(working).trimEnd())).toBe(true);

    release();
    let done: any;
    await waitUntil(async () => {
      done = ((await client.getTask({ id })) as any).result;
      return done.status.state === 'completed';
    });
    expect(sentText(done)).toBe(shown);
    const parts = done.artifacts.flatMap((artifact: any) => artifact.parts);
    expect(parts.every((p: any) => p.kind === 'text')).toBe(true);
    // Polled again, it is the same reply: the same artifact, not a new one per read.
    const again: any = ((await client.getTask({ id })) as any).result;
    expect(again.artifacts).toEqual(done.artifacts);
    // The history is still the task's conversation: the caller's message, then the agent's.
    expect(done.history[0]).toMatchObject({ role: 'user', parts: [{ kind: 'text', text: 'How much quota is left?' }] });
    expect(done.history.at(-1)).toMatchObject({ role: 'agent', parts: [{ kind: 'text', text: 'You can start 8 more vCPUs in cn-hangzhou.' }] });
  });
});
