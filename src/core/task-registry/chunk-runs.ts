import { sameMessage, withFields, type Message, type Task } from '../../model/index.js';
import { beginsWith, continuesRun } from './merged-runs.js';

/**
 * The agent's Task with the chunks of its messages that its store folded away, as the gateway recorded them.
 *
 * An a2a-js 1.x agent's store writes a status message into the history only under a messageId it does not
 * hold yet: of a reply streamed in chunks under one id ("已选择", " cn-hangzhou。", "部署完成。"), its Task holds the
 * first chunk alone, and the latest as its status message. The gateway folded every chunk as it passed (fold.ts:
 * one history message each), so its record of the turn holds what the caller was shown; taken in over the record
 * (a GetTask answer, a Task event), the agent's Task would leave the record, and every later read, with the
 * first chunk. A run of one id in the record (agent messages in a row) stands for the agent's one message of
 * that id when the run begins as that message does and holds more than it, and the agent holds the id nowhere
 * else: its first chunk, then the others; or one message, the run's chunks merged once the record outgrew
 * `tasks.history-limit` (merged-runs.ts: cut to its last messages, the record would have lost the first chunk,
 * and a reply of more chunks than the limit read as that chunk alone). An id recorded in more than one run
 * (iac-code reuses its ids in every turn, and keeps every chunk anyway) is left as the agent has it. A run at
 * the record's front stands for nothing: the record begins with the task's opening message unless its front was
 * cut, and a run cut so (by a release that did not merge runs first) may begin with a later chunk that says what
 * the first did (a "." of a run of dots): the words between would be left out. Every Task taken in passes here:
 * an answer is walked once, and the record's agent messages indexed by id once, linear in both.
 */
export function withChunksKept(answer: Task, recorded: readonly Message[] | undefined): Task {
  const history = answer.history;
  if (!history?.length || !recorded?.some((message) => message.role === 'ROLE_AGENT')) return answer;
  const runs = runsByIdOf(recorded);
  if (runs.size === 0) return answer;
  const held = new Map<string, number>();
  for (const message of history) held.set(message.messageId, (held.get(message.messageId) ?? 0) + 1);
  let changed = false;
  const whole = history.flatMap((message) => {
    const run = runs.get(message.messageId);
    if (!run || held.get(message.messageId) !== 1 || !standsFor(run, message)) return [message];
    changed = true;
    return run;
  });
  return changed ? withFields(answer, { history: whole }) : answer;
}

/**
 * Whether the record's run holds more of the agent's message than the agent does: it begins as that message does
 * (a run's first chunk, or its chunks merged into one, merged-runs.ts), and is more than it.
 */
const standsFor = (run: readonly Message[], message: Message): boolean =>
  message.role === 'ROLE_AGENT' && beginsWith(run[0]!, message) && (run.length > 1 || !sameMessage(run[0], message));

/**
 * The record's agent messages in runs of one id (a lone message is a run of one), by that id; an id with more
 * than one run, and the run at the record's front, are left out.
 */
function runsByIdOf(recorded: readonly Message[]): Map<string, Message[]> {
  const runs = new Map<string, Message[]>();
  const ambiguous = new Set<string>();
  let current: Message[] = [];
  const close = () => {
    const id = current[0]?.messageId;
    if (id === undefined) return;
    if (current[0] !== recorded[0] && !runs.has(id) && !ambiguous.has(id)) runs.set(id, current);
    else ambiguous.add(id);
    current = [];
  };
  recorded.forEach((message, at) => {
    if (!continuesRun(message, recorded[at - 1])) close();
    if (message.role === 'ROLE_AGENT') current.push(message);
  });
  close();
  for (const id of ambiguous) runs.delete(id);
  return runs;
}
