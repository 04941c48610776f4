/**
 * "The official 1.0 SDK client works against the gateway exactly as it works against the agent": the
 * same client code, once straight at the upstream and once through the gateway in front of it, must
 * see the same tasks, streams and errors (ids, timestamps and URLs aside).
 */
import { Role, TaskState, type Message, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import {
  TRANSPORTS,
  V1_WIRE,
  asTask,
  collect,
  connect,
  listRequest,
  outline,
  rejectionOf,
  sendRequest,
  streamedArtifactText,
  textOf,
  wireCode,
  wireError,
  type Payload,
  type WireError,
} from '../../support/sdk-v1-client.js';
import { UPSTREAMS } from '../../support/upstreams.js';

/** What a caller can rely on in a task, without the ids and timestamps that differ per run. */
function taskShape(task: Task) {
  const messageShape = (message: Message) => ({ role: message.role, text: textOf(message) });
  return {
    state: task.status?.state,
    statusMessage: task.status?.message ? messageShape(task.status.message) : undefined,
    history: task.history.map(messageShape),
    artifacts: task.artifacts.map((artifact) => ({
      name: artifact.name,
      parts: artifact.parts.map((part) => ({
        kind: part.content?.$case,
        mediaType: part.mediaType,
        text: part.content?.$case === 'text' ? part.content.value : undefined,
      })),
    })),
  };
}

function streamShape(payloads: Payload[]) {
  return { outline: payloads.map(outline), reply: streamedArtifactText(payloads) };
}

/** An error without the ids in its message. */
function errorShape(error: WireError, ids: string[]): WireError {
  return { ...error, message: ids.reduce((message, id) => message.replaceAll(id, '<id>'), error.message) };
}

describe.each(UPSTREAMS)('the same client straight at the $name and through the gateway', (upstream) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await upstream.startGatewayWithReachableUpstream();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  describe.each(TRANSPORTS)('preferring %s', (transport) => {
    let direct: Client;
    let bridged: Client;
    /** Run the same scenario on both clients. */
    const both = <T>(scenario: (client: Client) => Promise<T>) => Promise.all([scenario(direct), scenario(bridged)]);
    /** The agent's task as the gateway shows it: with the message that opened it first, which iac-code leaves out. */
    const shownShape = (task: Task, opening: string) => {
      const shape = taskShape(task);
      return upstream.showsOpeningMessage ? shape : { ...shape, history: [{ role: Role.ROLE_USER, text: opening }, ...shape.history] };
    };
    /** The direct client's error as the bridged client's binding renders it (they differ when the agent lacks that binding). */
    const asBridged = (error: WireError): WireError =>
      direct.transport.protocolName === transport || error.code === undefined ? error : { ...error, code: wireCode(transport, error.code) };

    beforeAll(async () => {
      if (!gateway.upstreamUrl) throw new Error('this upstream case does not expose its URL');
      [{ client: direct }, { client: bridged }] = await Promise.all([connect(gateway.upstreamUrl, transport), connect(gateway.url, transport)]);
      // The demo agent offers JSON-RPC only, so its direct client falls back to it; the gateway offers both.
      expect(bridged.transport.protocolName).toBe(transport);
    });

    it('sendMessage: the same finished task', async () => {
      const [straight, through] = await both(async (client) => asTask(await client.sendMessage(sendRequest('same answer?'))));
      expect(taskShape(through)).toEqual(shownShape(straight, 'same answer?'));
      expect(through.status?.state).toBe(upstream.endState);
    });

    it('sendMessageStream: the same events in the same order', async () => {
      const [straight, through] = await both((client) => collect(client.sendMessageStream(sendRequest('same stream?'))));
      expect(streamShape(through)).toEqual(streamShape(straight));
      expect(streamShape(through).outline).toEqual(upstream.streamOutline('same stream?', 1));
    });

    it('a follow-up on the context: the same second turn', async () => {
      const [straight, through] = await both(async (client) => {
        const first = asTask(await client.sendMessage(sendRequest('turn one')));
        return asTask(await client.sendMessage(sendRequest('turn two', { contextId: first.contextId })));
      });
      expect(taskShape(through)).toEqual(shownShape(straight, 'turn two'));
      expect(textOf(through.history.at(-1))).toBe(upstream.reply('turn two', 2));
    });

    it('getTask with historyLength: the same view of the task', async () => {
      const [straight, through] = await both(async (client) => {
        const sent = asTask(await client.sendMessage(sendRequest('look me up')));
        return Promise.all([
          client.getTask({ tenant: '', id: sent.id, historyLength: undefined }),
          client.getTask({ tenant: '', id: sent.id, historyLength: 1 }),
        ]);
      });
      expect(through.map(taskShape)).toEqual([shownShape(straight[0], 'look me up'), taskShape(straight[1])]);
    });

    it('cancelTask on a finished task: the same error', async () => {
      const [straight, through] = await both(async (client) => {
        const task = asTask(await client.sendMessage(sendRequest('too late to cancel')));
        return errorShape(await rejectionOf(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })), [task.id]);
      });
      expect(through).toEqual(asBridged(straight));
    });

    it('getExtendedAgentCard: the same outcome', async () => {
      const [straight, through] = await both((client) =>
        client.transport.getExtendedAgentCard({ tenant: '' }, V1_WIRE).then(
          (card) => ({ name: card.name, skills: card.skills.map((skill) => skill.id), version: card.version }),
          (error: unknown) => wireError(error),
        ),
      );
      expect(through).toEqual('message' in straight ? asBridged(straight) : straight);
    });

    // A terminal task's subscription goes upstream, so the answer is the agent's own (-32004 from a2a-js,
    // as A2A 1.0 prescribes). One waiting for input is answered by the gateway with its Task alone (the
    // stream ends at an interrupted state), where the demo agent, like iac-code, refuses it "not active".
    it('resubscribeTask on a finished task: the same error; on one waiting for input, its Task', async () => {
      const [straight, through] = await both(async (client) => {
        const task = asTask(await client.sendMessage(sendRequest('finished already')));
        const streamed: string[] = [];
        const failure = await (async () => {
          for await (const event of client.resubscribeTask({ tenant: '', id: task.id })) if (event.payload) streamed.push(outline(event.payload));
        })().then(
          () => undefined,
          (error: unknown) => errorShape(wireError(error), [task.id]),
        );
        return { streamed, failure };
      });
      if (upstream.endState === TaskState.TASK_STATE_INPUT_REQUIRED) {
        expect(straight.failure).toMatchObject({ message: expect.stringContaining('is not active') });
        expect(through).toEqual({ streamed: ['task'], failure: undefined });
        return;
      }
      // Nothing is streamed before the refusal, as straight at the agent.
      expect(through).toEqual({ streamed: straight.streamed, failure: straight.failure && asBridged(straight.failure) });
      expect(through.failure).toBeDefined();
    });

    it('listTasks through the gateway lists what went through the gateway only (its own registry)', async () => {
      const contextId = `shared-${transport === 'JSONRPC' ? 'rpc' : 'rest'}-${Date.now()}`;
      const straight = asTask(await direct.sendMessage(sendRequest('sent around the gateway', { contextId })));
      const through = asTask(await bridged.sendMessage(sendRequest('sent through the gateway', { contextId })));
      const upstreamList = await direct.listTasks(listRequest({ contextId }));
      expect(upstreamList.tasks.map((task) => task.id).sort()).toEqual([straight.id, through.id].sort());
      const gatewayList = await bridged.listTasks(listRequest({ contextId }));
      expect(gatewayList.tasks.map((task) => task.id)).toEqual([through.id]);
      expect(taskShape(gatewayList.tasks[0] as Task).state).toBe(upstream.endState);
    });
  });
});
