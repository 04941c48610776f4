/**
 * iac-code's own (non-A2A) routes as the fake serves them, faithful to the captures:
 *   GET /iac-code/readiness                      the readiness document
 *   GET /iac-code/pipeline/state?contextId=&taskId=&afterSequence=
 *       400 {"error":"contextId or taskId is required"}; 400 {"error":"afterSequence must be a
 *       non-negative integer"} (ASCII digits, at most 20); 404 {"error":...} for an unknown task or
 *       context, or a task the pipeline journal has nothing of; else `{snapshot, events}` from the
 *       journal (fake-iac-code-journal.ts, as read in iac-code's source).
 * A parameter given more than once is read at its LAST value, as iac-code's Starlette reads it
 * (`request.query_params.get`), and an empty one counts as absent (its `... or None`).
 */
import type { ServerResponse } from 'node:http';
import type { Json } from './fake-iac-code-data.js';
import type { PipelineJournal } from './fake-iac-code-journal.js';

export const READINESS = {
  schemaVersion: 1,
  llm: { ready: false, source: 'local', provider: null, providerDisplay: null, model: 'm', missing: ['provider'] },
  cloud: { ready: false, provider: 'aliyun', mode: null, regionId: null, missing: ['credentials'] },
};

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

/** Starlette's `query_params.get`: the last value of a repeated parameter, null when there is none. */
function lastValue(query: URLSearchParams, name: string): string | null {
  return query.getAll(name).at(-1) ?? null;
}

/** Answers the route and returns true, or returns false when `path` is not one of iac-code's own routes. */
export function serveIacCodeRoute(
  path: string,
  query: URLSearchParams,
  res: ServerResponse,
  tasks: Map<string, Json>,
  journal: PipelineJournal,
): boolean {
  if (path === '/iac-code/readiness') {
    json(res, 200, READINESS);
    return true;
  }
  if (path !== '/iac-code/pipeline/state') return false;
  if (journal.failed(res)) return true;
  const contextId = lastValue(query, 'contextId') ?? '';
  const taskId = lastValue(query, 'taskId') ?? '';
  const after = lastValue(query, 'afterSequence');
  if (!contextId && !taskId) return (json(res, 400, { error: 'contextId or taskId is required' }), true);
  if (after !== null && !/^[0-9]{1,20}$/.test(after)) return (json(res, 400, { error: 'afterSequence must be a non-negative integer' }), true);
  const task = taskId ? tasks.get(taskId) : [...tasks.values()].find((candidate) => candidate.contextId === contextId);
  if (!task || (contextId && task.contextId !== contextId)) return (json(res, 404, { error: 'A2A pipeline state not found' }), true);
  const state = journal.state(task, after === null || after === '' ? undefined : Number(after));
  json(res, state ? 200 : 404, state ?? { error: 'A2A pipeline state not found' });
  return true;
}
