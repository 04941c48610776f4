/**
 * A hand-written A2A 1.0 JSON-RPC agent that is off-spec in one way: messages and artifacts without
 * parts (`parts: []`, or no `parts` key at all, as ProtoJSON writes an empty list). Every turn is:
 *   Task SUBMITTED, its history [the user's message, an agent message with `parts: []`] →
 *   WORKING whose message has `parts: []` → WORKING whose message has no `parts` →
 *   an artifact-update with `parts: []` → the answer's artifact-update → COMPLETED with the answer.
 * SendMessage answers the finished Task (an artifact without parts beside the answer's); GetTask any id
 * as that Task; CancelTask any id as CANCELED with a status message without parts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonRpcAgentCard, readJsonBody } from '../../support/json-rpc-agent.js';

export const V1_EMPTY_PARTS_ANSWER = 'the answer after empty progress';

type Json = Record<string, unknown>;

const agentMessage = (messageId: string, ids: { taskId: string; contextId: string }, parts?: Json[]): Json => ({
  messageId,
  role: 'ROLE_AGENT',
  ...ids,
  ...(parts ? { parts } : {}),
});

function finishedTask(taskId: string, contextId: string, userMessage: Json | undefined, state = 'TASK_STATE_COMPLETED'): Json {
  const ids = { taskId, contextId };
  const canceled = state === 'TASK_STATE_CANCELED';
  return {
    id: taskId,
    contextId,
    status: { state, message: agentMessage(`${taskId}-status`, ids, canceled ? [] : [{ text: V1_EMPTY_PARTS_ANSWER }]) },
    artifacts: [
      { artifactId: `${taskId}-progress`, parts: [] },
      { artifactId: `${taskId}-reply`, parts: [{ text: V1_EMPTY_PARTS_ANSWER }] },
    ],
    history: [...(userMessage ? [userMessage] : []), agentMessage(`${taskId}-empty`, ids, [])],
  };
}

function turnEvents(taskId: string, contextId: string, userMessage: Json): Json[] {
  const ids = { taskId, contextId };
  const update = (state: string, message?: Json): Json => ({ statusUpdate: { ...ids, status: { state, ...(message ? { message } : {}) } } });
  return [
    { task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [userMessage, agentMessage(`${taskId}-empty`, ids, [])] } },
    update('TASK_STATE_WORKING', agentMessage(`${taskId}-w1`, ids, [])),
    update('TASK_STATE_WORKING', agentMessage(`${taskId}-w2`, ids)),
    { artifactUpdate: { ...ids, artifact: { artifactId: `${taskId}-progress`, parts: [] } } },
    { artifactUpdate: { ...ids, artifact: { artifactId: `${taskId}-reply`, parts: [{ text: V1_EMPTY_PARTS_ANSWER }] } } },
    update('TASK_STATE_COMPLETED', agentMessage(`${taskId}-status`, ids, [{ text: V1_EMPTY_PARTS_ANSWER }])),
  ];
}

export interface EmptyPartsV1Agent {
  url: string;
  close(): Promise<void>;
}

export async function startEmptyPartsV1Agent(): Promise<EmptyPartsV1Agent> {
  let turns = 0;
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') {
        const about = {
          name: 'empty-parts',
          description: 'Sends messages and artifacts without parts',
          skill: { id: 's', name: 'S', description: 'd' },
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jsonRpcAgentCard(url, about)));
        return;
      }
      const rpc = await readJsonBody(req);
      const envelope = (result: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result });
      const message = rpc.params?.message as Json | undefined;
      const taskId = (message?.taskId as string | undefined) ?? `task-${++turns}`;
      const contextId = (message?.contextId as string | undefined) ?? `ctx-${turns}`;
      switch (rpc.method) {
        case 'SendStreamingMessage':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(
            turnEvents(taskId, contextId, { ...message, taskId, contextId })
              .map((event) => `data: ${envelope(event)}\n\n`)
              .join(''),
          );
          return;
        case 'SendMessage':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(envelope({ task: finishedTask(taskId, contextId, { ...message, taskId, contextId }) }));
          return;
        case 'GetTask':
          res.writeHead(200, { 'content-type': 'application/json' }).end(envelope(finishedTask(rpc.params.id, 'ctx-got', undefined)));
          return;
        case 'CancelTask':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(envelope(finishedTask(rpc.params.id, 'ctx-got', undefined, 'TASK_STATE_CANCELED')));
          return;
        default:
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'no' } }));
      }
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
