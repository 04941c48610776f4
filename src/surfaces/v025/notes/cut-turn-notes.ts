import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { WarningLogger } from '../../../throttled-warnings.js';
import { journaledEntries } from '../../../journaled-file.js';
import { withFields, type Message, type Part, type Task } from '../../../model/index.js';
import type { KeyedRead } from './keyed-note-reads.js';
import { messageDigest } from '../turn/repeated-message.js';
import { agentMessages, said, type TurnSoFar } from '../recovery/turn-rest.js';

/**
 * The facade turn of each conversation the gateway's shutdown cut (cut-turns.ts), by caller and context, with
 * what its user was shown of it: noted as the cut turn's stream ends, read by the conversation's next message
 * on whichever replica or restarted process it lands, forgotten once that message's turn has ended. What was
 * shown is kept in the note, not read from the registry later: a push follower or a GetTask records the turn's
 * end there without anyone reading it. Best effort: a store that cannot answer knows of no cut.
 */
export interface CutTurnNote {
  taskId: string;
  /** What the cut turn's user was shown: where its rest starts (turn-rest.ts restCursor). */
  shown: TurnSoFar;
  /** Why its user stopped reading it, when no connection broke (absent: a shutdown or a hang-up, as in notes written before it). */
  reason?: CutReason;
}

/** `timed-out`: the gateway's own bound on the call passed (unwatched-turns.ts), and its user was told the agent goes on. */
export type CutReason = 'timed-out';

export interface CutTurnNotes {
  note(principal: string, contextId: string, cut: CutTurnNote): Promise<void>;
  /** The conversation's cut turn whose rest its user has not read, if any. */
  cut(principal: string, contextId: string): Promise<CutTurnNote | undefined>;
  /** Forgets the note only while it still names `taskId`: a turn cut since keeps its own. */
  forget(principal: string, contextId: string, taskId: string): Promise<void>;
  /**
   * Resolves once the notes written so far are kept (a shutdown writes them as its drain ends the cut turns); called
   * as the store closes, so a local store then folds its journal into its snapshot (createLocalCutTurnNotes).
   */
  settled(): Promise<void>;
}

const conversationKey = (principal: string, contextId: string): string => `${principal.length}:${principal}:${contextId}`;

/**
 * The task before the cut turn as a note keeps it: only what the rest reads of it, so that a long task's note stays
 * small. turn-rest.ts (turnStart) counts its agent messages and compares the last with the task's; the reply
 * leaves its artifacts out of the rest (reply-options.ts), and turn-pipeline.ts reads its envelopes' numbers
 * from its metadata. Its history, often thousands of streamed pieces, is not kept.
 */
interface KeptPrevious {
  /** The task without its history or status message. */
  task: Task;
  /** How many agent messages it had (its history's, then its status message). */
  agentMessages: number;
  last?: Message;
}

/**
 * The note as JSON holds it: the files shown, a Map in the turn, as entries; the message sent and the task before,
 * slim. The slim task goes in `kept`, never in `previous`, where the release before reads a whole Task (its
 * restCursor throws on the slim form): a note read by it (a rollback, a replica not yet rolled) has no task before,
 * and its rest starts after the task's last user message instead, as a note of a new task's does.
 */
interface StoredNote {
  taskId: string;
  reason?: CutReason;
  shown: Omit<TurnSoFar, 'shownFiles' | 'previous'> & {
    shownFiles?: Array<[string, readonly Part[] | null]>;
    kept?: KeptPrevious;
    /** A note written before `kept` holds the task whole (or, for a while, slim). */
    previous?: KeptPrevious | Task;
  };
}

function keptPrevious(previous: Task): KeptPrevious {
  const agent = agentMessages(said(previous));
  const { history: _history, status, ...task } = previous;
  const { message: _message, ...bare } = status;
  const last = agent.at(-1);
  return withFields({ task: withFields(task, { status: bare }), agentMessages: agent.length }, last ? { last } : {});
}

/** A message before the last, of which turn-rest.ts reads only that it is the agent's. */
const EARLIER: Message = { messageId: '', role: 'ROLE_AGENT', parts: [] };

const isKept = (previous: KeptPrevious | Task): previous is KeptPrevious => typeof previous.agentMessages === 'number';

function previousOf(kept: KeptPrevious | Task): Task {
  if (!isKept(kept)) return kept;
  const history = kept.last ? [...new Array<Message>(Math.max(0, kept.agentMessages - 1)).fill(EARLIER), kept.last] : [];
  return withFields(kept.task, { history });
}

/** The message the turn sent: what the rest reads of it (its id, the task it followed up), without its parts. */
const sentSlim = ({ messageId, role, taskId, contextId }: Message): Message =>
  withFields({ messageId, role, parts: [] }, withFields(taskId ? { taskId } : {}, contextId ? { contextId } : {}));

/**
 * What the message sent asked, as a digest (repeated-message.ts): kept from the note read, whose message is slim by
 * then (a turn that showed a cut turn's rest and was itself left is noted again). A note the release before wrote
 * keeps none: a message after it reads the rest as it did then. That release keeps the field of a note it writes again.
 */
const sentDigestOf = ({ sentDigest, sent }: TurnSoFar): { sentDigest?: string } => {
  const digest = sentDigest ?? messageDigest(sent);
  return digest ? { sentDigest: digest } : {};
};

function stored(cut: CutTurnNote): StoredNote {
  const { shownFiles, previous, sent, sentDigest: _sentDigest, ...shown } = cut.shown;
  const files = shownFiles ? [...shownFiles].map(([id, parts]): [string, readonly Part[] | null] => [id, parts ?? null]) : undefined;
  const slim = withFields(withFields(shown, { sent: sentSlim(sent), ...sentDigestOf(cut.shown) }), previous ? { kept: keptPrevious(previous) } : {});
  return withFields({ taskId: cut.taskId, shown: files ? withFields(slim, { shownFiles: files }) : slim }, reasonOf(cut));
}

/** The reason as kept: only one this release knows, so that a note from a later one reads as a broken connection. */
const reasonOf = ({ reason }: { reason?: unknown }): { reason?: CutReason } => (reason === 'timed-out' ? { reason } : {});

function fromStored(value: StoredNote): CutTurnNote | undefined {
  if (typeof value?.taskId !== 'string' || typeof value.shown !== 'object' || !Array.isArray(value.shown?.passed)) return undefined;
  const { shownFiles, kept, previous, sentDigest, ...shown } = value.shown;
  const files = shownFiles ? new Map(shownFiles.map(([id, parts]) => [id, parts ?? undefined])) : undefined;
  const before = kept ?? previous;
  const whole = withFields(withFields(shown, typeof sentDigest === 'string' ? { sentDigest } : {}), before ? { previous: previousOf(before) } : {});
  return withFields({ taskId: value.taskId, shown: files ? withFields(whole, { shownFiles: files }) : whole }, reasonOf(value));
}

function parsed(text: string | null | undefined): CutTurnNote | undefined {
  if (!text) return undefined;
  try {
    return fromStored(JSON.parse(text) as StoredNote);
  } catch {
    return undefined;
  }
}

/** The writes in flight, so that closing the store waits for the notes a shutdown's drain just wrote. */
function inFlight(): { track<T>(work: Promise<T>): Promise<T>; settled(): Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  return {
    track(work) {
      pending.add(work);
      void work.finally(() => pending.delete(work)).catch(() => undefined);
      return work;
    },
    settled: async () => void (await Promise.allSettled([...pending])),
  };
}

interface KeptNote {
  key: string;
  note: StoredNote;
  /** When it is forgotten (epoch ms); absent: never. */
  until?: number;
}

/**
 * One process's notes, in `<dir>/facade_cut_turns.json` and its journal `facade_cut_turns.jsonl` when a dir is
 * given (journaled-file.ts: a hang-up appends its note's line, it does not rewrite every note): a rollout replaces
 * the process whose drain cut the turn, and the words at the cut promise its rest to the conversation's next
 * message. Loaded at once; at most `max` kept (the oldest go first), each for `idleTtlMs` (0: until read).
 * `settled()`, as the store closes, folds the journal into the snapshot: the release before reads only the snapshot.
 */
export function createLocalCutTurnNotes(options: { max: number; idleTtlMs: number; dir?: string; logger?: WarningLogger }): CutTurnNotes {
  const kept = new Map<string, KeptNote>();
  const failed = (error: unknown): void => options.logger?.warn({ err: error }, 'facade cut-turn notes could not be read or saved');
  const file = options.dir
    ? journaledEntries<KeptNote>({
        snapshotPath: join(options.dir, 'facade_cut_turns.json'),
        journalPath: join(options.dir, 'facade_cut_turns.jsonl'),
        live: kept,
        onError: failed,
      })
    : undefined;
  const loaded = (async () => {
    if (!file) return;
    // A note the journal set again moved last, as in the process that wrote it; one whose time is over is not read.
    for (const entry of await file.load().catch((error: unknown) => (failed(error), [] as KeptNote[])))
      if (entry.until === undefined || entry.until > Date.now()) kept.set(entry.key, entry);
    for (const oldest of kept.keys()) {
      if (kept.size <= options.max) break;
      kept.delete(oldest);
    }
  })();
  const writes = inFlight();
  const live = async (key: string): Promise<KeptNote | undefined> => {
    await loaded;
    const entry = kept.get(key);
    if (entry?.until !== undefined && entry.until <= Date.now()) kept.delete(key);
    return kept.get(key);
  };
  return {
    note: (principal, contextId, cut) =>
      writes.track(
        (async () => {
          await loaded;
          const key = conversationKey(principal, contextId);
          const entry: KeptNote = { key, note: stored(cut), ...(options.idleTtlMs > 0 ? { until: Date.now() + options.idleTtlMs } : {}) };
          kept.delete(key);
          kept.set(key, entry);
          const noted = file?.set(entry);
          // Forgotten in the journal too, so that the next process reads the notes this one holds, not older ones.
          const evicted: Array<Promise<void> | undefined> = [];
          for (const oldest of kept.keys()) {
            if (kept.size <= options.max) break;
            kept.delete(oldest);
            evicted.push(file?.forget(oldest));
          }
          await Promise.all([noted, ...evicted]);
        })(),
      ),
    async cut(principal, contextId) {
      const entry = await live(conversationKey(principal, contextId));
      return entry ? fromStored(entry.note) : undefined;
    },
    async forget(principal, contextId, taskId) {
      const key = conversationKey(principal, contextId);
      if ((await live(key))?.note.taskId !== taskId) return;
      kept.delete(key);
      await writes.track(file?.forget(key) ?? Promise.resolve());
    },
    async settled() {
      await writes.settled();
      await file?.compact();
    },
  };
}

/** Deleted only while it still names the turn's task, in one round trip. */
const FORGET_SCRIPT = `local kept = redis.call('GET', KEYS[1])
if kept and cjson.decode(kept).taskId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Notes in Redis, the conversation's also readable with other notes in one round trip (keyed-note-reads.ts). */
export interface RedisCutTurnNotes extends CutTurnNotes {
  keyedCut(principal: string, contextId: string): KeyedRead<CutTurnNote>;
}

/** Shared by every replica, on the conversation store's connection (conversation-languages.ts). */
export function createRedisCutTurnNotes(redis: Redis, options: { prefix: string; ttlMs: number }): RedisCutTurnNotes {
  // Read as no note; the connection's watcher (conversation-languages.ts) counts and tells what Redis failed.
  const failed = (): undefined => undefined;
  const key = (principal: string, contextId: string): string => `${options.prefix}conversation-cut-turn:${conversationKey(principal, contextId)}`;
  const writes = inFlight();
  return {
    async note(principal, contextId, cut) {
      await writes.track(redis.set(key(principal, contextId), JSON.stringify(stored(cut)), 'PX', options.ttlMs).catch(failed));
    },
    async cut(principal, contextId) {
      return parsed(await redis.get(key(principal, contextId)).catch(failed));
    },
    async forget(principal, contextId, taskId) {
      await redis.eval(FORGET_SCRIPT, 1, key(principal, contextId), taskId).catch(failed);
    },
    settled: writes.settled,
    keyedCut: (principal, contextId) => ({ key: key(principal, contextId), read: parsed }),
  };
}
