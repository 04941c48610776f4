/**
 * The official a2a-js 1.x client through the gateway to a real a2a-js 0.2.5 agent, on a task the gateway never
 * saw finish: one another client of the agent ran to its end. A2A 1.0 refuses a message to a finished task with
 * UnsupportedOperation (§3.1.1), as the gateway does for a task it recorded finished (follow-up-refusals.test.ts);
 * the agent refuses it in 0.2.5's terms (-32600), which reached the 1.0 caller as a malformed request.
 */
import type { Task } from 'a2a-sdk-025';
import { A2AClient } from 'a2a-sdk-025/client';
import { describe, expect, it } from 'vitest';
import { rejectionOf, sendRequest, wireCode, type TransportName } from '../../support/sdk-v1-client.js';
import { v025AgentBehindGateway } from './v025-agent-behind-gateway.js';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  "a message over %s to a task finished at a 0.2.5 agent behind the gateway's back",
  (transport: TransportName) => {
    const running = v025AgentBehindGateway(transport);

    it("is UnsupportedOperation, sent or streamed, in the agent's words", async () => {
      const direct = new A2AClient(running.agent.url);
      const answer = await direct.sendMessage({
        message: { kind: 'message', role: 'user', messageId: `direct-${transport}`, parts: [{ kind: 'text', text: 'hello' }] },
      });
      const task = 'result' in answer ? (answer.result as Task) : undefined;
      expect(task?.status.state).toBe('completed');
      const ids = { taskId: task!.id, contextId: task!.contextId };
      for (const call of [running.client.sendMessage(sendRequest('more', ids)), running.client.sendMessageStream(sendRequest('more', ids))]) {
        const refusal = await rejectionOf(call);
        expect(refusal).toMatchObject({ code: wireCode(transport, -32004), reason: 'UNSUPPORTED_OPERATION' });
        expect(refusal.message).toBe(`Task ${ids.taskId} is in a terminal state (completed) and cannot be modified.`);
      }
    });
  },
);
