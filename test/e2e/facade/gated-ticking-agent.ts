/**
 * A REAL a2a-js 0.2.5 agent that streams its answer as appended chunks of one text artifact, and stops in the
 * middle until the test lets it go on, so a caller can join the turn (tasks/resubscribe) at a known point:
 * "Working on it..." as its working message, TICKS_BEFORE chunks "tick N. ", a stop, TICKS_AFTER more, the last
 * one marked `lastChunk`, then completed. It can go on when a subscription listens, and say one chunk as a
 * subscription comes, before the SDK answers it. A prompt that starts with ASK_PREFIX is answered with QUESTION
 * alone (input-required); the follow-up is that turn of the task, as above (the SDK keeps no follow-up in the task).
 */
import { InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from 'a2a-sdk-025/server';
import { saidStatus, startSdkV025Server } from '../../support/sdk-v025-server.js';

export const TICKS_BEFORE = 10;
export const TICKS_AFTER = 20;
export const WORKING = 'Working on it...';
export const ASK_PREFIX = 'ask:';
export const QUESTION = 'Which region?';
const TICKS = Array.from({ length: TICKS_BEFORE + TICKS_AFTER }, (_, i) => `tick ${i}. `);
/** Every chunk the agent streams, in order. */
export const ALL_TICKS = TICKS.join('');

/** A turn stopped after TICKS_BEFORE chunks: its task, and what lets it go on. */
export interface StoppedTurn {
  taskId: string;
  /** Goes on now. */
  goOn(): void;
  /**
   * Goes on once a tasks/resubscribe to the task listens: the SDK sends the Task it loaded, then listens to the
   * turn's events (before it, the agent's words would reach no subscriber), all before the next turn of the loop.
   */
  goOnOnceFollowed(): void;
  /**
   * Says one chunk more when a tasks/resubscribe to the task comes, before the SDK loads the task for it (once the
   * store holds that chunk): the gateway has read the task just before it subscribes, so only the SDK's Task has it.
   */
  saysOneMoreAsSubscribed(): void;
}

export interface GatedTickingAgent {
  url: string;
  /** The next turn, once it has said its first TICKS_BEFORE chunks and stopped (the SDK may store the last ones a moment later). */
  nextStop(): Promise<StoppedTurn>;
  close(): Promise<void>;
}

/** A turn's chunks past the stop: how many more it may say, and what wakes it. */
interface Allowance {
  left: number;
  wake?: () => void;
}

export async function startGatedTickingAgent(): Promise<GatedTickingAgent> {
  const store = new InMemoryTaskStore();
  const stops: StoppedTurn[] = [];
  const waiting: Array<(stop: StoppedTurn) => void> = [];
  const stopped = (stop: StoppedTurn): void => {
    const waiter = waiting.shift();
    if (waiter) waiter(stop);
    else stops.push(stop);
  };
  const allowances = new Map<string, Allowance>();
  const allow = (taskId: string, chunks: number): void => {
    const allowance = allowances.get(taskId);
    if (!allowance) return;
    allowance.left += chunks;
    allowance.wake?.();
  };
  /** What each task does when a tasks/resubscribe comes (before the SDK answers it), and once it listens. */
  const onSubscribe = new Map<string, () => Promise<void>>();
  const onceFollowed = new Map<string, () => void>();
  const storedChunks = async (taskId: string): Promise<number> => (await store.load(taskId))?.artifacts?.[0]?.parts.length ?? 0;

  const executor: AgentExecutor = {
    async execute({ taskId, contextId, userMessage, task }: RequestContext, bus: ExecutionEventBus) {
      if (!task) {
        bus.publish({
          kind: 'task',
          id: taskId,
          contextId,
          status: { state: 'submitted', timestamp: new Date().toISOString() },
          history: [userMessage],
        });
      }
      const asks = userMessage.parts.some((part) => part.kind === 'text' && part.text.startsWith(ASK_PREFIX));
      if (asks) {
        bus.publish(saidStatus({ taskId, contextId }, 'input-required', QUESTION, true));
        return;
      }
      bus.publish(saidStatus({ taskId, contextId }, 'working', WORKING, false));
      const allowance: Allowance = { left: 0 };
      allowances.set(taskId, allowance);
      const goOn = () => allow(taskId, Infinity);
      for (let i = 0; i < TICKS.length; i++) {
        if (i === TICKS_BEFORE) {
          stopped({
            taskId,
            goOn,
            goOnOnceFollowed: () => onceFollowed.set(taskId, goOn),
            saysOneMoreAsSubscribed: () =>
              onSubscribe.set(taskId, async () => {
                allow(taskId, 1);
                while ((await storedChunks(taskId)) <= TICKS_BEFORE) await new Promise((stored) => setImmediate(stored));
              }),
          });
        }
        if (i >= TICKS_BEFORE) {
          while (allowance.left <= 0) await new Promise<void>((wake) => (allowance.wake = wake));
          allowance.left--;
        }
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          append: i > 0,
          lastChunk: i === TICKS.length - 1,
          artifact: { artifactId: 'ticks', parts: [{ kind: 'text', text: TICKS[i]! }] },
        });
      }
      allowances.delete(taskId);
      bus.publish({ kind: 'status-update', taskId, contextId, final: true, status: { state: 'completed', timestamp: new Date().toISOString() } });
    },
    async cancelTask() {},
  };
  const server = await startSdkV025Server({
    card: {
      name: 'gated-ticking',
      description: 'streams appended chunks, stopping halfway',
      skills: [{ id: 'ticks', name: 'ticks', description: 'ticks', tags: [] }],
    },
    executor,
    store,
    extend: (app) =>
      app.use(async (req, res, next) => {
        const { method, params } = (req.body ?? {}) as { method?: string; params?: { id?: string } };
        if (method === 'tasks/resubscribe' && typeof params?.id === 'string') {
          const taskId = params.id;
          const said = onSubscribe.get(taskId);
          onSubscribe.delete(taskId);
          await said?.();
          const write = res.write.bind(res) as (...args: unknown[]) => boolean;
          // The first frame is the Task; the SDK listens to the turn right after it is written.
          res.write = ((...args: unknown[]) => {
            const written = write(...args);
            const goOn = String(args[0]).startsWith('data:') ? onceFollowed.get(taskId) : undefined;
            if (goOn) {
              onceFollowed.delete(taskId);
              setImmediate(goOn);
            }
            return written;
          }) as typeof res.write;
        }
        next();
      }),
    onClose: () => [...allowances.keys()].forEach((taskId) => allow(taskId, Infinity)),
  });
  return {
    url: server.url,
    nextStop: () => {
      const stop = stops.shift();
      return stop ? Promise.resolve(stop) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => server.close(),
  };
}
