import { SteppedStage, type Step } from '../../../core/stepped-stages.js';
import { withCallerMessagesKept } from '../../../core/task-registry/caller-messages.js';
import { isActiveState, sameMessage, type Message, type StreamResponse, type Task } from '../../../model/index.js';
import { isAssistantFinal } from '../../../upstream/iac-code/events.js';
import { closingTaskEvents } from '../reply/task-events.js';
import { earlierFilesOf, withAddedPartsOnly, type TurnFiles } from '../turn/files-before-turn.js';
import { latestTurnMessageOf } from '../turn/latest-turn-message.js';
import { SnapshotEcho } from '../recovery/turn-echo.js';
import { agentMessages, restCursor, said, type TurnSoFar } from '../recovery/turn-rest.js';
import { latestStatus, snapshotGap } from '../recovery/turn-snapshot.js';
import { TurnTracker } from '../recovery/turn-tracker.js';

/**
 * A caller's tasks/resubscribe to a turn at work. The agent answers with the Task as it stands (every word the
 * turn said so far), then what it says next. Whoever subscribes has read none of that reply on this stream (its
 * own stream dropped, or it reads on another screen): the reply reducer would take the working Task for an
 * opening and show only the live words, the middle of the answer, and an agent that restates its whole reply at
 * the end (the demo agent) would then show it twice. So the snapshot's words of the turn come first, as the
 * agent streamed them (as tasks/get reads them: its messages, then its files), and the live events past them, as
 * the facade's own recovery of a broken stream relays them (turn-resubscribe.ts): what repeats the snapshot, an
 * a2a-js 1.x agent sending what it said as the subscription began, is dropped (turn-echo.ts).
 */

const NO_MESSAGE: Message = { messageId: '', role: 'ROLE_USER', parts: [] };

/**
 * The agent's Task with the caller's messages it left out put back from the gateway's record (`recorded`), as
 * tasks/get reads it (core/recording.ts): a2a-js 0.2.5 never stores a follow-up, so its Task's last user message is
 * the one that opened it, and every word since, an earlier turn's question too, would read as this turn's.
 */
const asRecorded = (task: Task, recorded: Task | undefined): Task => withCallerMessagesKept(task, recorded?.history);

/** The turn's start, from its last user message, as tasks/get tells it (task-reply.ts): nothing of it read yet. */
const unread = (task: Task): TurnSoFar => ({ sent: latestTurnMessageOf(task) ?? NO_MESSAGE, passed: [] });

/**
 * The turn the working Task holds, as the events a streaming agent sent: the Task that opens it, its agent
 * messages (the status message with the latest update as it came, its metadata too), its files, and the latest
 * update when it carries no message but metadata. Where a file came among the messages the task does not say:
 * after them, as tasks/get shows it; nor does it say which turn wrote a file: those the turn found in the task
 * (`filesBefore`, files-before-turn.ts) are left out, as tasks/get leaves them out.
 */
export function snapshotTurnEvents(task: Task, filesBefore?: TurnFiles): StreamResponse[] {
  const latest = latestStatus(task);
  const current = task.status.message;
  const messages = agentMessages(said(task)).slice(restCursor(task, unread(task)).shownMessages);
  const { taskId, contextId } = latest;
  const working = (message: Message): StreamResponse => ({ statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message } } });
  const spoken = messages.map((message, at) =>
    at === messages.length - 1 && sameMessage(message, current) ? { statusUpdate: latest } : working(message),
  );
  const earlier = earlierFilesOf(task, filesBefore);
  const files = withAddedPartsOnly(
    closingTaskEvents(task, earlier?.unchanged).filter((event) => 'artifactUpdate' in event),
    earlier,
  );
  // A latest update without a message tells something only by its metadata (iac-code's tool call, a pipeline's envelopes).
  const quietLatest = current === undefined && latest.metadata !== undefined ? [{ statusUpdate: latest }] : [];
  return [{ task }, ...spoken, ...files, ...quietLatest];
}

/**
 * A resubscription's events as its caller reads them: a working snapshot's turn first, then the live events past it.
 * A later Task at work is the agent's own snapshot, read after the gateway's (in front of a 0.2.5 agent the gateway
 * reads the task, then subscribes, and a2a-js 0.2.5 opens that stream with the task it loaded): what it holds past
 * what was shown is what the agent said in between, shown as the recovery of a broken stream shows it (turn-snapshot.ts).
 * `recorded`: the gateway's record of the task (its caller's messages), read before the subscription; `filesBefore`:
 * the files the task held before its latest turn, as noted when that turn began (files-before-turn.ts).
 */
export function joinedTurn(source: AsyncIterable<StreamResponse>, recorded?: Task, filesBefore?: TurnFiles): AsyncIterableIterator<StreamResponse> {
  return new JoinedTurn(source, recorded, filesBefore);
}

/** What the agent messages among `events` say, in order. */
const wordsOf = (events: readonly StreamResponse[]): string =>
  events
    .flatMap((event) =>
      'statusUpdate' in event && event.statusUpdate.status.message?.role === 'ROLE_AGENT' ? event.statusUpdate.status.message.parts : [],
    )
    .map((part) => part.text ?? '')
    .join('');

/**
 * A stage (core/stepped-stages.ts): read through with the layers below it. What one event makes is noted as it is
 * made (the tracker is this turn's own: nothing else reads it between two of them).
 */
class JoinedTurn extends SteppedStage<StreamResponse, StreamResponse> {
  #tracker: TurnTracker | undefined;
  #echo: SnapshotEcho | undefined;
  #opened = false;
  /**
   * What the latest snapshot's messages said, while nothing said live has followed them: iac-code's assistantFinal
   * restates the text after its last tool call, and the snapshot shows the tool's file after its messages (the
   * Task does not say where it came), so the reply no longer ends with that text when the restatement comes.
   */
  #snapshotWords: string | undefined;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly recorded: Task | undefined,
    private readonly filesBefore: TurnFiles | undefined,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return this.events[Symbol.asyncIterator]();
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> {
    if (result.done) return { items: [], end: true };
    const event = result.value;
    const opening = !this.#opened;
    this.#opened = true;
    if ('task' in event && isActiveState(event.task.status.state) && (opening || this.#tracker)) {
      const task = asRecorded(event.task, this.recorded);
      const tracker = (this.#tracker ??= new TurnTracker(unread(task)));
      const before = tracker.soFar();
      const shown = opening
        ? snapshotTurnEvents(task, this.filesBefore)
        : snapshotGap(task, before, earlierFilesOf(task, this.filesBefore)?.unchanged).events;
      for (const made of shown) tracker.note(made);
      this.#echo = new SnapshotEcho(task, before);
      this.#snapshotWords = wordsOf(shown);
      return { items: shown };
    }
    const relayed = (this.#echo ? this.#echo.pass(event) : [event]).filter((made) => !this.restatesSnapshot(made));
    for (const made of relayed) this.#tracker?.note(made);
    return { items: relayed };
  }

  /** Whether `event` is iac-code's assistantFinal saying again the last words of the snapshot, nothing said since. */
  private restatesSnapshot(event: StreamResponse): boolean {
    const words = this.#snapshotWords;
    if ('artifactUpdate' in event) this.#snapshotWords = undefined;
    const message = 'statusUpdate' in event ? event.statusUpdate.status.message : undefined;
    if (!('statusUpdate' in event) || message?.role !== 'ROLE_AGENT') return false;
    this.#snapshotWords = undefined;
    const said = wordsOf([event]).trim();
    return isAssistantFinal(event.statusUpdate.metadata) && words !== undefined && said !== '' && words.trimEnd().endsWith(said);
  }
}
