import { withFields } from '../../model/index.js';

type Shape = Record<string, unknown>;
const isShape = (value: unknown): value is Shape => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A status whose timestamp is no date ("yesterday", an agent's own format), without it: protobuf's Timestamp
 * cannot hold it, and grpc-js would fail the answer after the turn ran ("Error serializing response"), and
 * every later ListTasks that holds the task. The JSON bindings relay it as the agent wrote it.
 */
function encodableStatus(holder: Shape): Shape {
  const status = holder.status;
  if (!isShape(status) || typeof status.timestamp !== 'string' || !Number.isNaN(Date.parse(status.timestamp))) return holder;
  const { timestamp: _unreadable, ...rest } = status;
  return withFields(holder, { status: rest });
}

/** A result's statuses (a Task's, an update's, each listed task's) with dates protobuf can hold; the same object when all are. */
export function withEncodableTimestamps(result: unknown): unknown {
  if (!isShape(result)) return result;
  if (isShape(result.task)) return withChanged(result, 'task', encodableStatus(result.task));
  if (isShape(result.statusUpdate)) return withChanged(result, 'statusUpdate', encodableStatus(result.statusUpdate));
  if (Array.isArray(result.tasks)) {
    const listed: unknown[] = result.tasks;
    const tasks = listed.map((task) => (isShape(task) ? encodableStatus(task) : task));
    return tasks.every((task, at) => task === listed[at]) ? result : withFields(result, { tasks });
  }
  return encodableStatus(result);
}

const withChanged = (result: Shape, key: string, inner: Shape): Shape => (inner === result[key] ? result : withFields(result, { [key]: inner }));
