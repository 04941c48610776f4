/**
 * A 1.0 SDK developer in front of iac-code, on JSON-RPC, HTTP+JSON and gRPC alike: a pipeline run (question,
 * candidates, choice, deployment confirmation) whose envelopes each reach the caller once and the same on every
 * binding; a cancel mid-turn; a stream the caller drops and picks up again with SubscribeToTask, the record then
 * holding every word iac-code said, once. Ids and times aside, every binding returns the same.
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDIDATES, PIPELINE_SAYS } from '../../support/fake-iac-code-pipeline.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, sendRequest, StreamReader, textOf, type Payload } from '../../support/sdk-v1-client.js';
import { connectGrpc } from './grpc-client.js';
import { normalized } from './explore-iac-code-normalized.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
type Binding = (typeof BINDINGS)[number];

interface Envelope {
  eventType: string;
  sequence: number;
  data?: { text?: string };
}

/** The pipeline envelopes of a stream, as the caller reads them from the updates' metadata. */
function envelopes(payloads: Payload[]): Envelope[] {
  return payloads.flatMap((payload) => {
    if (payload.$case !== 'statusUpdate') return [];
    const iac = (payload.value.metadata as { iac_code?: { pipeline?: Envelope; pipelineBatch?: { events: Envelope[] } } } | undefined)?.iac_code;
    return [...(iac?.pipeline ? [iac.pipeline] : []), ...(iac?.pipelineBatch?.events ?? [])];
  });
}

const finalState = (payloads: Payload[]) => payloads.filter((payload) => payload.$case === 'statusUpdate').at(-1)?.value.status?.state;

function gatewayFor(options: Parameters<typeof startFakeIacCode>[0]) {
  const state: { fake?: FakeIacCode; gateway?: TestGateway } = {};
  beforeAll(async () => {
    state.fake = await startFakeIacCode(options);
    state.gateway = await startTestGateway({ upstream: { url: state.fake.url }, grpc: { port: 0 } });
  });
  afterAll(async () => {
    await state.gateway?.close();
    await state.fake?.close();
  });
  return async (binding: Binding): Promise<Client> =>
    binding === 'GRPC' ? connectGrpc(state.gateway!.url) : (await connect(state.gateway!.url, binding)).client;
}

describe('a pipeline run', () => {
  const clientFor = gatewayFor({ runMode: 'pipeline', confirmsDeployment: true });

  async function run(client: Client) {
    const asking = await collect(client.sendMessageStream(sendRequest('一个网站')));
    const ids = asking[0]!.$case === 'task' ? { taskId: asking[0]!.value.id, contextId: asking[0]!.value.contextId } : {};
    const planning = await collect(client.sendMessageStream(sendRequest('1', ids)));
    const confirming = await collect(client.sendMessageStream(sendRequest(CANDIDATES[0]!.name, ids)));
    const deploying = await collect(client.sendMessageStream(sendRequest('{"action":"confirm"}', ids)));
    const turns = { asking, planning, confirming, deploying };
    const sequences = Object.values(turns).flatMap((turn) => envelopes(turn).map((envelope) => envelope.sequence));
    const words = Object.values(turns)
      .flatMap((turn) => envelopes(turn))
      .filter((envelope) => envelope.eventType === 'text_delta')
      .map((envelope) => envelope.data?.text)
      .join('');
    return {
      states: Object.values(turns).map(finalState),
      repeatedEnvelopes: sequences.filter((sequence, index) => sequences.indexOf(sequence) !== index),
      words,
      streams: normalized(turns),
      task: normalized(await client.getTask({ tenant: '', id: ids.taskId!, historyLength: undefined })),
    };
  }

  it('reaches the caller the same on every binding, each envelope once', async () => {
    const seen: Record<string, Awaited<ReturnType<typeof run>>> = {};
    for (const binding of BINDINGS) seen[binding] = await run(await clientFor(binding));
    const json = seen['JSONRPC']!;
    const waiting = TaskState.TASK_STATE_INPUT_REQUIRED;
    expect(json.states).toEqual([waiting, waiting, waiting, TaskState.TASK_STATE_COMPLETED]);
    expect(json.repeatedEnvelopes).toEqual([]);
    for (const said of [
      ...PIPELINE_SAYS.asking,
      PIPELINE_SAYS.planning,
      ...CANDIDATES.flatMap((candidate) => candidate.text),
      PIPELINE_SAYS.deployed,
    ]) {
      expect(json.words.split(said).length - 1, said).toBe(1);
    }
    for (const binding of ['HTTP+JSON', 'GRPC']) {
      expect(seen[binding]!.streams, binding).toEqual(json.streams);
      expect(seen[binding]!.task, binding).toEqual(json.task);
    }
  });
});

describe('a pipeline run answered with blocking sends, then canceled while it waits', () => {
  const clientFor = gatewayFor({ runMode: 'pipeline', confirmsDeployment: true });

  async function run(client: Client) {
    const asked = asTask(await client.sendMessage(sendRequest('一个网站')));
    const ids = { taskId: asked.id, contextId: asked.contextId };
    const planned = asTask(await client.sendMessage(sendRequest('1', ids)));
    const canceled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    const fetched = await client.getTask({ tenant: '', id: asked.id, historyLength: undefined });
    return {
      states: [asked, planned, canceled, fetched].map((task) => task.status?.state),
      // A pipeline update has no message: iac-code's reason is in its `pipeline_canceled` envelope.
      reason: JSON.stringify(canceled.metadata ?? {}).includes('"reason":"Task canceled."') ? 'Task canceled.' : JSON.stringify(canceled.metadata),
      tasks: normalized({ asked, planned, canceled, fetched }),
    };
  }

  it("every binding returns the same tasks, and the cancel ends the run with iac-code's reason", async () => {
    const seen: Record<string, Awaited<ReturnType<typeof run>>> = {};
    for (const binding of BINDINGS) seen[binding] = await run(await clientFor(binding));
    const json = seen['JSONRPC']!;
    const waiting = TaskState.TASK_STATE_INPUT_REQUIRED;
    const canceled = TaskState.TASK_STATE_CANCELED;
    expect({ states: json.states, reason: json.reason }).toEqual({ states: [waiting, waiting, canceled, canceled], reason: 'Task canceled.' });
    for (const binding of ['HTTP+JSON', 'GRPC']) expect(seen[binding]!.tasks, binding).toEqual(json.tasks);
  });
});

describe('a slow turn', () => {
  const clientFor = gatewayFor({ frameDelayMs: 40 });

  async function cancelMidTurn(client: Client) {
    const reader = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
    const opening = await reader.expectNext();
    const taskId = opening.$case === 'task' ? opening.value.id : '';
    await reader.expectNext();
    const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    const rest = await reader.rest();
    return {
      canceled: { state: canceled.status?.state, text: textOf(canceled.status?.message) },
      streamEnd: finalState(rest),
      fetched: normalized(await client.getTask({ tenant: '', id: taskId, historyLength: 0 })),
    };
  }

  async function resubscribe(client: Client) {
    const reader = new StreamReader(client.sendMessageStream(sendRequest('template: a VPC')));
    const opening = await reader.expectNext();
    const taskId = opening.$case === 'task' ? opening.value.id : '';
    for (let index = 0; index < 3; index++) await reader.expectNext();
    await reader.close();
    const again = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    const chunks = task.history.filter((message) => message.messageId === `${taskId}-message`).map(textOf);
    return { opening: again[0]?.$case, end: finalState(again), chunks, artifacts: task.artifacts.map((artifact) => artifact.name) };
  }

  it.each(BINDINGS)("canceled mid-turn over %s, ends CANCELED with iac-code's reason, as on JSON-RPC", async (binding) => {
    const seen = await cancelMidTurn(await clientFor(binding));
    expect(seen.canceled).toEqual({ state: TaskState.TASK_STATE_CANCELED, text: 'Task canceled.' });
    expect(seen.streamEnd).toBe(TaskState.TASK_STATE_CANCELED);
    expect(seen.fetched).toEqual((await cancelMidTurn(await clientFor('JSONRPC'))).fetched);
  });

  it.each(BINDINGS)('dropped and resubscribed over %s, the record holds every chunk once', async (binding) => {
    const seen = await resubscribe(await clientFor(binding));
    expect(seen).toEqual({
      opening: 'task',
      end: TaskState.TASK_STATE_INPUT_REQUIRED,
      chunks: ['Hello ', 'world.', 'Done.'],
      artifacts: ['main.tf'],
    });
  });
});
