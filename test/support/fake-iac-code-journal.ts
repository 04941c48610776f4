/**
 * The fake iac-code's pipeline journal and the state route that reads it (`GET /iac-code/pipeline/state`),
 * as iac-code's source has them (read there, not captured; docs/iac-code.md, "Pipeline mode"):
 *  - every envelope a pipeline turn publishes is appended to its context's journal before it is sent, the
 *    same object, numbers and all (`sequence` counts across the whole run of the context, not per turn);
 *    some are journaled and never sent (a backup-gated envelope's `pending_backup` copy: JOURNAL_ONLY);
 *  - the route answers `{snapshot, events}`: `events` the task's journaled envelopes numbered above
 *    `afterSequence` (above the snapshot's `lastSequence` without one), in order; `snapshot` the state
 *    iac-code folds them into, here only its identity, status and `lastSequence` (the real one also has
 *    the steps, candidates and display lists, which the gateway does not read);
 *  - an artifact's envelope comes back with its `uri` left out (iac-code sanitizes artifact URIs there),
 *    so a reader cannot lean on it.
 * Its 400s and 404s are in fake-iac-code-routes.ts. `failure` stands in for a server where the route is
 * missing (an older iac-code: 404 text/plain), broken (500) or hangs.
 */
import type { ServerResponse } from 'node:http';
import type { Json } from './fake-iac-code-data.js';

/** On an event: envelopes journaled just before it that were never sent (they still take their numbers). */
export const JOURNAL_ONLY = Symbol('journalOnly');

export type PipelineStateFailure = 'missing' | 'fails' | 'hangs';

function envelopesOf(event: Json): Json[] {
  const iacCode = ((event.statusUpdate as Json | undefined)?.metadata as Json | undefined)?.iac_code as Json | undefined;
  const batch = iacCode?.pipelineBatch as Json | undefined;
  if (Array.isArray(batch?.events)) return batch.events as Json[];
  return iacCode?.pipeline ? [iacCode.pipeline as Json] : [];
}

export class PipelineJournal {
  private readonly byContext = new Map<string, Json[]>();
  /** The route's behaviour for tests: undefined answers as iac-code does. */
  failure: PipelineStateFailure | undefined;

  /** Journal what `event` publishes, as the turn sends it. */
  note(contextId: string, event: Json): void {
    const hidden = (event as Record<symbol, Json[] | undefined>)[JOURNAL_ONLY] ?? [];
    const published = [...hidden, ...envelopesOf(event)];
    if (published.length === 0) return;
    const journal = this.byContext.get(contextId) ?? [];
    journal.push(...published.map((envelope) => structuredClone(envelope)));
    this.byContext.set(contextId, journal);
  }

  /** The 200 answer for a task (its events after `after`), or undefined when the journal has none of it. */
  state(task: Json, after: number | undefined): Json | undefined {
    const ofTask = (this.byContext.get(task.contextId as string) ?? []).filter((envelope) => envelope.taskId === task.id);
    if (ofTask.length === 0) return undefined;
    const sorted = [...ofTask].sort((a, b) => (a.sequence as number) - (b.sequence as number));
    const last = sorted.at(-1) as Json;
    const lastSequence = last.sequence as number;
    const snapshot = { schemaVersion: '1.1', contextId: task.contextId, taskId: task.id, status: last.status, lastSequence };
    const events = sorted.filter((envelope) => (envelope.sequence as number) > (after ?? lastSequence)).map(withoutArtifactUri);
    return { snapshot, events };
  }

  /** Answers for a failing route and returns true; false when the route answers as iac-code does. */
  failed(res: ServerResponse): boolean {
    if (this.failure === undefined) return false;
    if (this.failure === 'missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    if (this.failure === 'fails') res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"Internal Server Error"}');
    // 'hangs': no answer at all; the fake's close drops the connection.
    return true;
  }
}

function withoutArtifactUri(envelope: Json): Json {
  if (envelope.eventType !== 'artifact_created') return envelope;
  const { uri: _uri, ...data } = (envelope.data as Json | undefined) ?? {};
  return { ...envelope, data };
}
