/**
 * Replica A is stopped in the middle of a turn it streams: gracefully (SIGTERM, a rollout; its drain shorter
 * than the turn) or killed (SIGKILL, a crash). The a2a-js 1.x caller, on each binding, sees its stream end
 * with an error, subscribes again on replica B and gets the rest: the task as it stands, then what the agent
 * says after, so that together every step reaches it, and the turn completes. Its next message in the
 * conversation is taken on B once the turn is over.
 */
import { TaskState } from 'a2a-sdk-1';
import { isJsonRpcError, isRestError } from 'a2a-sdk-1/errors';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireRedis } from '../../support/redis.js';
import { asTask, payloadRef, sendRequest, StreamReader, type Payload } from '../../support/sdk-v1-client.js';
import { longWords } from './deploy-agent.js';
import { BINDINGS, sdkClient, startDeploymentWithChild, type Binding, type ChildReplica, type Deployment } from './deployment.js';
import { historyLines, streamedArtifacts, streamedLines, taskArtifacts } from './seen.js';

const STEPS = 24;
let deployment: Deployment<ChildReplica> | undefined;
beforeAll(requireRedis);
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

/**
 * Everything a stream's failure tells its SDK caller: its message and reason, and the ErrorInfo details the
 * SDK keeps (it reads only A2A's own reasons: JSON-RPC's SSE error comes as a plain Error whose message
 * quotes the error's data; a gRPC status's other ErrorInfo stays in its `statusDetailsBin`).
 */
function failureText(error: unknown): string {
  if (isGrpcError(error)) return `${error.reason} ${error.message} ${error.statusDetailsBin?.toString('latin1') ?? ''}`;
  if (isJsonRpcError(error) || isRestError(error)) return `${error.reason} ${error.message} ${JSON.stringify(error)}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Reads `stream` until it ends: what it carried, and how it ended (undefined: it closed cleanly). */
async function readToEnd(stream: StreamReader, seen: Payload[]): Promise<string | undefined> {
  try {
    for (let payload = await stream.next(); payload; payload = await stream.next()) seen.push(payload);
    return undefined;
  } catch (error) {
    return failureText(error);
  }
}

/** A `long` turn streamed on A over `binding`, read until a few of its steps came. */
async function streamingOnA(deployment: Deployment<ChildReplica>, binding: Binding) {
  const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
  const name = `svc-${binding}`;
  const seenOnA: Payload[] = [];
  const streamed = new StreamReader(onA.sendMessageStream(sendRequest(`long ${name} ${STEPS}`)));
  seenOnA.push(await streamed.expectNext());
  while (streamedLines(seenOnA).length < 4) seenOnA.push(await streamed.expectNext());
  return { binding, onB, name, seenOnA, ...payloadRef(seenOnA[0]!), ending: readToEnd(streamed, seenOnA) };
}

/** What the caller of `turn` does once its stream failed: subscribe on B, read the rest, go on in the conversation there. */
async function followedOnB(turn: Awaited<ReturnType<typeof streamingOnA>>) {
  const { onB, taskId, contextId } = turn;
  const words = longWords(turn.name, STEPS);
  const subscribed = await new StreamReader(onB.resubscribeTask({ tenant: '', id: taskId })).rest();
  expect(subscribed[0]?.$case).toBe('task');
  const opening = subscribed[0]?.$case === 'task' ? subscribed[0].value : undefined;
  const saidOnB = [...historyLines(opening!).filter((line) => line.startsWith('agent: ')), ...streamedLines(subscribed.slice(1))];
  for (const line of words.progress)
    expect(
      saidOnB.filter((seen) => seen.endsWith(line)),
      line,
    ).toHaveLength(1);
  expect(saidOnB.at(-1)).toBe(`completed: [text/plain] ${words.done}`);
  expect(streamedArtifacts(subscribed.slice(1), opening?.artifacts)).toEqual({ log: [`[text/plain] ${words.lines.join('')}`] });

  const task = await onB.getTask({ tenant: '', id: taskId, historyLength: undefined });
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(taskArtifacts(task)).toEqual({ log: [`[text/plain] ${words.lines.join('')}`] });
  for (const line of words.progress)
    expect(
      historyLines(task).filter((seen) => seen.endsWith(line)),
      line,
    ).toHaveLength(1);

  // The conversation goes on on B: its turn is over, A's lane no longer holds it.
  const next = asTask(await onB.sendMessage(sendRequest('long next 1', { contextId })));
  expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
}

// A replica's child process takes seconds to start: each stop once, each on another binding to the agent
// (JSON-RPC is the one explore-replica-crash.test.ts kills).
const CASES = [
  { signal: 'SIGTERM', upstream: 'HTTP+JSON' },
  { signal: 'SIGKILL', upstream: 'GRPC' },
] as const;

describe.each(CASES)('replica A stopped with $signal mid-stream, the agent called over $upstream', ({ signal, upstream }) => {
  it("on every binding the stream fails, B's subscription brings the rest, every step once", async () => {
    deployment = await startDeploymentWithChild({ upstream, settings: { 'drain-timeout-ms': 300, tasks: { 'lane-lease-ms': 3_000 } } });
    const turns = await Promise.all(BINDINGS.map((binding) => streamingOnA(deployment!, binding)));
    await deployment.a.stop(signal);
    for (const turn of turns) {
      const endedWith = await turn.ending;
      // A crash cannot tell the caller anything, but its stream must not look complete.
      expect(endedWith, turn.binding).toBeDefined();
      // A graceful stop tells the caller its task goes on at the agent, in words and (but where the SDK drops it) as an ErrorInfo.
      if (signal === 'SIGTERM') expect(endedWith, turn.binding).toContain(`but task ${turn.taskId} goes on at the agent`);
      if (signal === 'SIGTERM' && turn.binding !== 'HTTP+JSON') expect(endedWith, turn.binding).toContain('STREAM_CUT_TASK_CONTINUES');
      expect(streamedLines(turn.seenOnA).at(-1), turn.binding).toMatch(/^working/);
    }
    await Promise.all(turns.map(followedOnB));
  }, 60_000); // replica A is a child process: it takes seconds (up to tens on a busy host) to start
});
