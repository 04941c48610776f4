/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 1.x agent served as A2A 0.3 only (`legacyCompat`, over
 * JSON-RPC and over HTTP+JSON) whose executor, answered in the task it asked its question in, publishes only updates
 * (no Task first). The agent's SDK refuses to stream such a turn (-32004 "Received statusUpdate before initial
 * 'Message'/'Task' event.") but takes it sent non-blocking: spoken to directly, a `returnImmediately` answer returns
 * the task working, and the agent completes it. The gateway streams a `returnImmediately` message to a 0.3 agent
 * (upstream/v025/immediate.ts), so the caller was told the call failed, and the task stayed waiting for input. The
 * message is now sent as the caller asked once the agent refused to stream it (upstream/v025/unstreamable-follow-up.ts);
 * a message to a task the agent has finished is still refused (-32004), and not sent again.
 */
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { REGION_QUESTION as QUESTION, regionPlanner } from '../../support/region-planner.js';
import { artifactText, asTask, rejectionOf, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { serveLegacyCompatAgent, type CompatBinding } from './legacy-compat-agent.js';
import { connectBinding } from './sdk1-client.js';

const answersWithUpdatesAlone = regionPlanner({ reopensTask: false });

const withoutWaiting = (request: SendMessageRequest): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const satisfies CompatBinding[])(
  'a returnImmediately answer to an a2a-js 1.x agent served as 0.3 over %s',
  (agentBinding) => {
    let agent: RunningTestAgent;
    let gateway: TestGateway;

    beforeAll(async () => {
      agent = await serveLegacyCompatAgent({
        name: 'answers-with-updates',
        description: 'Asks for a region, then plans in it without publishing its Task again.',
        interfaces: [{ binding: agentBinding, version: '0.3' }],
        executor: answersWithUpdatesAlone,
      });
      gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    });
    afterAll(async () => {
      await gateway?.close();
      await agent?.close();
    });

    it.each(['JSONRPC', 'GRPC'] as const)('over %s: answered with the task, which the agent then completes', async (binding) => {
      const client = await connectBinding(gateway.url, binding);
      for (const region of ['eu-west', 'us-east']) {
        const asked = asTask(await client.sendMessage(sendRequest('plan a VPC')));
        expect([asked.status?.state, textOf(asked.status?.message)]).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED, QUESTION]);

        const answered = asTask(await client.sendMessage(withoutWaiting(sendRequest(region, { taskId: asked.id, contextId: asked.contextId }))));
        expect(answered.id).toBe(asked.id);
        await expect
          .poll(async () => {
            const task = await client.getTask({ tenant: '', id: asked.id, historyLength: undefined });
            return [task.status?.state, artifactText(task)];
          })
          .toEqual([TaskState.TASK_STATE_COMPLETED, `A VPC in ${region}`]);
      }
    });

    it('a message to a task the agent finished (run through another gateway) is refused, -32004', async () => {
      const other = await startTestGateway({ upstream: { url: agent.url } });
      try {
        const elsewhere = await connectBinding(other.url, 'JSONRPC');
        const asked = asTask(await elsewhere.sendMessage(sendRequest('plan a VPC')));
        const done = asTask(await elsewhere.sendMessage(sendRequest('eu-west', { taskId: asked.id, contextId: asked.contextId })));
        expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

        // A gateway of its own, which has not yet met a refused stream of this agent's.
        const fresh = await startTestGateway({ upstream: { url: agent.url } });
        onTestFinished(() => fresh.close());
        const client = await connectBinding(fresh.url, 'JSONRPC');
        const refused = await rejectionOf(
          client.sendMessage(withoutWaiting(sendRequest('us-east', { taskId: asked.id, contextId: asked.contextId }))),
        );
        expect(refused).toMatchObject({ code: -32004, message: expect.stringContaining('terminal state') });
      } finally {
        await other.close();
      }
    });
  },
);
