import { sameMessage, withFields, type Message, type Task } from '../../model/index.js';

/**
 * The agent's Task with the chunks of its messages that its store folded away, as the gateway recorded them.
 *
 * An a2a-js 1.x agent's store writes a status message into the history only under a messageId it does not
 * hold yet: of a reply streamed in chunks under one id ("已选择", " cn-hangzhou。", "部署完成。"), its Task holds the
 * first chunk alone, and the latest as its status message. The gateway folded every chunk as it passed (fold.ts:
 * one history message each), so its record of the turn holds what the caller was shown; taken in over the record
 * (a GetTask answer, a Task event), the agent's Task would leave the record, and every later read, with the
 * first chunk. A run of one id in the record (two agent messages or more in a row) stands for the agent's one
 * message of that id when that message is the run's first chunk and the agent holds the id nowhere else. An
 * id recorded in more than one run (iac-code reuses its ids in every turn, and keeps every chunk anyway) is
 * left as the agent has it. A run at the record's front stands for nothing: the record begins with the task's
 * opening message unless its front was cut (`tasks.history-limit`), and a run cut so may begin with a later
 * chunk that says what the first did (a "." of a run of dots): the words between would be left out.
 */
export function withChunksKept(answer: Task, recorded: readonly Message[] | undefined): Task {
  const history = answer.history;
  if (!history?.length || !recorded || !hasRun(recorded)) return answer;
  const runs = runsByIdOf(recorded);
  const held = new Map<string, number>();
  for (const message of history) held.set(message.messageId, (held.get(message.messageId) ?? 0) + 1);
  let changed = false;
  const whole = history.flatMap((message) => {
    const run = runs.get(message.messageId);
    if (!run || held.get(message.messageId) !== 1 || !sameMessage(message, run[0])) return [message];
    changed = true;
    return run;
  });
  return changed ? withFields(answer, { history: whole }) : answer;
}

const continuesRun = (message: Message, before: Message | undefined): boolean =>
  message.role === 'ROLE_AGENT' && before?.role === 'ROLE_AGENT' && before.messageId === message.messageId && message.messageId !== '';

/** Whether the record holds a run at all: one walk, nothing built (the answer of an agent that keeps every message). */
function hasRun(recorded: readonly Message[]): boolean {
  return recorded.some((message, at) => continuesRun(message, recorded[at - 1]));
}

/**
 * The record's runs of one id, by that id; an id with more than one run (or a lone message besides), and the
 * run at the record's front, are left out.
 */
function runsByIdOf(recorded: readonly Message[]): Map<string, Message[]> {
  const runs = new Map<string, Message[]>();
  const ambiguous = new Set<string>();
  let current: Message[] = [];
  const close = () => {
    const id = current[0]?.messageId;
    if (id === undefined) return;
    if (current.length > 1 && current[0] !== recorded[0] && !runs.has(id) && !ambiguous.has(id)) runs.set(id, current);
    else ambiguous.add(id);
    current = [];
  };
  recorded.forEach((message, at) => {
    if (!continuesRun(message, recorded[at - 1])) close();
    current.push(message);
  });
  close();
  for (const id of ambiguous) runs.delete(id);
  return runs;
}
