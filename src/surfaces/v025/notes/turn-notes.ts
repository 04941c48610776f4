import { withFields } from '../../../model/index.js';
import type { ConversationLanguages, ConversationNotesRead } from './conversation-languages.js';

/** The conversation stores a turn reads its notes through as it begins. */
export type TurnNoteStores = Pick<ConversationLanguages, 'cutTurns' | 'sentTurnMessages'> & { languages: ConversationLanguages };

const NOTHING: Promise<ConversationNotesRead> = Promise.resolve({ cut: undefined, sent: undefined, language: undefined });

/**
 * The stores through which a turn reads the notes of its conversation as it begins, after the wait for the turn its
 * caller just left (continuation.ts previousEnded): its cut turn's (cut-turns.ts cutTurnOf), its latest turn's message
 * (repeated-turn.ts), the language its caller last wrote in (reply-options.ts turnLanguageOf). Each module reads its
 * own note at its own stage as before; with a shared store the first of those reads asks for all three in one round
 * trip (three before), and each note's first read in the turn is answered from it. Nothing the turn does in between
 * writes them (the cut note is only forgotten, and read no more). A later read, or one of another conversation, goes
 * to the store. Per turn only: another replica may write between calls.
 *
 * A conversation the turn opens, under the context id the facade just made for it (begun-turn.ts), has no notes yet: with
 * a shared store its first reads are answered with none, and nothing is read.
 */
export function turnNoteStores(
  languages: ConversationLanguages,
  conversation: { principal: string; contextId: string | undefined },
  opened: boolean,
): TurnNoteStores {
  const { principal, contextId } = conversation;
  const { readTogether } = languages;
  // In one process's memory a note's read is a lookup: wrapping the stores would cost more than it saves.
  if (contextId === undefined || !readTogether) return { cutTurns: languages.cutTurns, sentTurnMessages: languages.sentTurnMessages, languages };
  let together: Promise<ConversationNotesRead> | undefined;
  const notes = (): Promise<ConversationNotesRead> => (opened ? NOTHING : (together ??= readTogether(principal, contextId)));
  /** `store`'s read, its first of this conversation answered from the notes read together. */
  const firstFromNotes = <T>(
    pick: (read: ConversationNotesRead) => T | undefined,
    store: (principal: string, id: string) => Promise<T | undefined>,
  ) => {
    let taken = false;
    return async (reader: string, id: string | undefined): Promise<T | undefined> => {
      if (taken || reader !== principal || id !== contextId) return store(reader, id as string);
      taken = true;
      return pick(await notes());
    };
  };
  return {
    cutTurns: withFields(languages.cutTurns, { cut: firstFromNotes((read) => read.cut, languages.cutTurns.cut) }),
    sentTurnMessages: withFields(languages.sentTurnMessages, { of: firstFromNotes((read) => read.sent, languages.sentTurnMessages.of) }),
    languages: withFields(languages, { of: firstFromNotes((read) => read.language, languages.of) }),
  };
}
