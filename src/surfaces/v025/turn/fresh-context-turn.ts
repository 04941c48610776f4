import type { Conversation } from '../recovery/cut-turns.js';
import type { ConversationLanguages } from '../notes/conversation-languages.js';
import type { GoneTaskOptions } from './gone-task.js';
import { noteMove } from '../notes/moved-contexts.js';
import type { FacadeWords } from '../reply/index.js';
import type { WatchedTurn } from '../recovery/watched-turn.js';

/**
 * What a turn whose task the facade picked notes when it goes on in a fresh context (gone-task.ts): its conversation
 * goes on there (moved-contexts.ts) and so do the notes the turn leaves for the conversation's next message (a
 * hang-up's, which tells it started afresh too; its message's, for a retry); the words that say the agent started
 * afresh (started-afresh.ts) are noted for the fresh context's task before anything of the turn goes out (tasks/get and
 * a retry of the message, asked as soon as its first frame names the task, show them too: started-afresh-turns.ts),
 * and in the turn's tracker as they go out (a hang-up after them does not tell them again).
 */
export function freshContextTurn(
  conversation: Conversation,
  watch: WatchedTurn,
  languages: ConversationLanguages,
  turn: { movedFrom: ReadonlyArray<string | undefined>; words: FacadeWords },
): Pick<GoneTaskOptions, 'movedTo' | 'startedAfresh' | 'toldAfresh'> {
  const { principal } = conversation;
  return {
    movedTo(contextId) {
      conversation.contextId = contextId;
      watch.startedAfresh();
      return noteMove(languages.movedContexts, principal, turn.movedFrom, contextId);
    },
    startedAfresh: turn.words.startedAfresh,
    toldAfresh: {
      noteTurn: (at) => languages.startedAfreshTurns.note(principal, at.taskId, at.messageId).catch(() => undefined),
      noteTold: (told) => watch.tracker.note(told),
    },
  };
}
