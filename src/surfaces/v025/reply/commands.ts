import { withFields, type StreamResponse } from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import { commandsIn } from '../../../translate/index.js';
import type { JsonObject } from '../../../translate/common.js';
import { replyChunk } from './reply-artifact.js';
import type { ReplyOptions, ReplyState } from './state.js';

/**
 * Bailian device commands: gathered from every upstream event's metadata (`commands` and
 * `<key>.commands`), once each, and sent once, on the last artifact-update of the turn, where
 * Bailian reads them (docs/bailian.md). Not from a Task snapshot as such: it holds the task's earlier
 * turns, whose commands the device ran then (a follow-up of an a2a-js 1.x agent opens with the task as it
 * was). A Task that is the turn's answer is replayed as this turn's events (task-events.ts), gathered then.
 */
export function collectCommands(state: ReplyState, event: StreamResponse, options: ReplyOptions): ReplyState {
  const key = options.deviceCommandsKey;
  if (!key) return state;
  const sources: (JsonObject | undefined)[] = [];
  if ('statusUpdate' in event) sources.push(event.statusUpdate.metadata, event.statusUpdate.status.message?.metadata);
  else if ('artifactUpdate' in event) sources.push(event.artifactUpdate.metadata, event.artifactUpdate.artifact.metadata);
  else if ('message' in event) sources.push(event.message.metadata);
  let commands = state.commands;
  for (const source of sources) {
    for (const command of commandsIn(source, key)) {
      const identity = JSON.stringify(command);
      // The same command on the task and on an event must not make a device act twice.
      if (!commands.some((seen) => JSON.stringify(seen) === identity)) commands = [...commands, command];
    }
  }
  return commands === state.commands ? state : withFields(state, { commands });
}

/** The gathered commands on the turn's closing chunk, or on an empty closing chunk made for them. */
export function attachCommands(state: ReplyState, out: V025StreamEvent[], options: ReplyOptions): void {
  if (state.commands.length === 0 || !options.deviceCommandsKey) return;
  const commands = [...state.commands];
  const last = out.at(-1);
  if (last?.kind === 'artifact-update' && last.lastChunk) {
    out[out.length - 1] = withFields(last, { artifact: withFields(last.artifact, { metadata: withFields(last.artifact.metadata, { commands }) }) });
    return;
  }
  const chunk = replyChunk(state, '', true, state.replyArtifactId ?? options.newId());
  out.push(withFields(chunk, { artifact: withFields(chunk.artifact, { metadata: { commands } }) }));
}
