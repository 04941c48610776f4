import { isDeepStrictEqual } from 'node:util';
import { LRUCache } from 'lru-cache';
import { countBound } from '../../../lru-count-bound.js';
import type { TaskStatus } from '../../../model/index.js';
import type { V025Task } from '../../../protocol/v025/index.js';

/**
 * The last body a webhook was pushed before its turn's end (`push-events: all`), per task and receiver. Each
 * read of a working task stands alone (task-working-turn.ts holds back words and files until their place is
 * sure, and lets them go when it is), so one read may show less than the read before: a receiver that shows the
 * latest push would see the reply shrink and come back ("Hello world." → nothing → "Hello world. main.tf"). A
 * body that does not carry on from the last one is replaced by that one again, which the push service drops as a
 * repeat (its body claim, push/resolve-change.ts): the receiver is sent only replies that grow. Bodies are held by
 * the process that pushes the turn's pieces: the replica its stream runs on.
 *
 * A change before the turn's end read once the turn ended (the task's chain of notifications caught up late) is
 * pushed the turn's end, read as the change that ends the turn will read it: that change is then pushed the same
 * body, kept while the recorded status stays the same, rather than asking the agent (and iac-code its whole
 * pipeline journal) again.
 */

/** How many tasks' last bodies are held at once: tasks pushed while at work; a turn's end lets its task go. */
const HELD_TASKS = 1_000;

/** What a body shows of its reply, in order: the text as it reads, anything else whole. */
function replyShown(task: V025Task): string {
  return (task.artifacts ?? [])
    .flatMap((artifact) => artifact.parts)
    .map((part) => (part.kind === 'text' ? part.text : `\n${JSON.stringify(part)}\n`))
    .join('');
}

const replyId = (task: V025Task): string | undefined => task.artifacts?.[0]?.artifactId;

/** `next` carries on from `last`: another turn's reply (another reply id), or the same reply shown as far or further. */
function carriesOn(last: V025Task, next: V025Task): boolean {
  const lastId = replyId(last);
  const nextId = replyId(next);
  if (lastId !== undefined && nextId !== undefined && lastId !== nextId) return true;
  return replyShown(next).startsWith(replyShown(last));
}

/** A body held for a task's receiver; `endedAs`: it is the turn's end, read while the recorded task had that status. */
interface Held {
  body: V025Task;
  endedAs?: TaskStatus;
}

export interface PushedReplies {
  /** The body to push for a change before the turn's end: `rendered`, unless it shows less than the last one pushed. */
  growing(key: string, rendered: V025Task): V025Task;
  /** The last body pushed before the turn's end, if this process pushed one. */
  last(key: string): V025Task | undefined;
  /** `body` is the turn's end as it reads while the recorded task has `status`. */
  keepEnd(key: string, body: V025Task, status: TaskStatus): void;
  /** The turn ended: its end as kept for the recorded task's `status`, if it was; the next turn starts afresh. */
  ended(key: string, status: TaskStatus): V025Task | undefined;
}

export function createPushedReplies(): PushedReplies {
  const held = new LRUCache<string, Held>(countBound(HELD_TASKS));
  return {
    growing(key, rendered) {
      const last = held.get(key)?.body;
      if (last && !carriesOn(last, rendered)) return last;
      held.set(key, { body: rendered });
      return rendered;
    },
    last: (key) => held.get(key)?.body,
    keepEnd(key, body, status) {
      held.set(key, { body, endedAs: status });
    },
    ended(key, status) {
      const kept = held.get(key);
      held.delete(key);
      return kept?.endedAs && isDeepStrictEqual(kept.endedAs, status) ? kept.body : undefined;
    },
  };
}
