import type { Artifact, Message, StreamResponse, Task } from '../../../model/index.js';
import { sameArtifactFile } from '../../../upstream/iac-code/artifacts.js';

/** The messages of the task's last turn: everything after the last user message. */
function lastTurn(history: readonly Message[]): readonly Message[] {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]?.role === 'ROLE_USER') return history.slice(i + 1);
  return history;
}

/**
 * The artifacts this turn added or changed (a task keeps every turn's artifacts): `earlier` is the task before the
 * turn as the gateway recorded it, with iac-code's file URLs, where `task` may hold the files read in.
 */
function artifactsOfThisTurn(task: Task, earlier: readonly Artifact[]): Artifact[] {
  const all = task.artifacts ?? [];
  if (earlier.length === 0) return all;
  const before = new Map(earlier.map((artifact) => [artifact.artifactId, artifact]));
  return all.filter((artifact) => {
    const was = before.get(artifact.artifactId);
    return was === undefined || !sameArtifactFile(was, artifact);
  });
}

/**
 * A turn that arrived as one finished Task (an upstream that does not stream, a blocking answer),
 * replayed as the events a streaming upstream would have sent: the opening task, the agent's
 * messages of the turn from its history, the turn's artifacts, then the final status. The reply
 * reducer then shows it exactly as it shows a streamed turn.
 */
export function taskTurnEvents(task: Task, earlierArtifacts: readonly Artifact[] = []): StreamResponse[] {
  const taskId = task.id;
  const contextId = task.contextId ?? task.id;
  const finalMessageId = task.status.message?.messageId;
  const events: StreamResponse[] = [{ task: { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } } }];
  for (const message of lastTurn(task.history ?? [])) {
    if (message.role !== 'ROLE_AGENT' || message.messageId === finalMessageId) continue;
    events.push({ statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message } } });
  }
  events.push(...closingTaskEvents(task, earlierArtifacts));
  return events;
}

/**
 * A Task that closes a streamed turn, as events: the turn's artifacts (the rules of the reply drop those it
 * already showed), then the final status. An agent may stream its progress and put its answer only there.
 */
export function closingTaskEvents(task: Task, earlierArtifacts: readonly Artifact[] = []): StreamResponse[] {
  const taskId = task.id;
  const contextId = task.contextId ?? task.id;
  const events: StreamResponse[] = artifactsOfThisTurn(task, earlierArtifacts).map((artifact) => ({
    artifactUpdate: { taskId, contextId, artifact, lastChunk: true },
  }));
  const metadata = task.metadata ? { metadata: task.metadata } : {};
  events.push({ statusUpdate: { taskId, contextId, status: task.status, ...metadata } });
  return events;
}
