/**
 * A message that ends the turn under the id of the agent's running text, as its last token (an agent that streams its
 * answer under one id and closes with that id; a failure's reason there still starts a line): a token that can only be the
 * rest of the last character or word goes on where the text left off, in every script, as the same token does between
 * two working messages. A line break there would split a letter from its accent or vowel sign, an emoji from its
 * skin tone, a flag in two, a Russian or Greek word in two. New words still start a line.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { bailian, options, shownAlike, status, submitted } from './support.js';

const closedUnderOneId = (running: string, closing: string, state = 'TASK_STATE_COMPLETED' as const): StreamResponse[] => [
  submitted,
  status('TASK_STATE_WORKING', running, {}, 'reply'),
  status(state, closing, {}, 'reply'),
];

/** The stream's text, checked against what message/send folds the same events into. */
const shown = (events: StreamResponse[]): string => shownAlike(events, options(bailian));

describe('the last token of a turn under the running id, in other scripts', () => {
  it.each([
    ['a combining accent', 'The café is open: Cafe', '\u0301.'],
    ['a Thai vowel sign', 'สวัสด', 'ี ครับ'],
    ['a Devanagari vowel sign', 'नमस्त', 'े.'],
    ['a keycap', 'Step 1', '\ufe0f\u20e3 done'],
    ['a skin tone', 'Thanks 👍', '\u{1f3fd}'],
    ['what follows a joiner', 'Ops team 👨\u200d', '💻 on call.'],
    ['the second half of a flag', 'Region 🇨', '🇳.'],
    ['a Russian word piece', 'Стек создан. Прив', 'ет.'],
    ['a Greek word piece', 'Η στοίβα δημιουργήθηκε. Ευχαρι', 'στώ.'],
    ['a word piece after an accented letter', 'Le déploiement est termin', 'é.'],
  ])('%s goes on with the text', (_, running, closing) => {
    expect(shown(closedUnderOneId(running, closing))).toBe(running + closing);
  });

  it.each([
    ['Russian new words', 'Стек создан', 'Готово.', 'Стек создан\nГотово.'],
    ['Greek new words', 'Η στοίβα', 'Έτοιμο.', 'Η στοίβα\nΈτοιμο.'],
    ['a flag after a whole flag', 'Region 🇨🇳', '🇯🇵 next.', 'Region 🇨🇳\n🇯🇵 next.'],
    ['Chinese new words', '正在部署', '部署完成。', '正在部署\n部署完成。'],
    ['a Latin capital', 'Deploying', 'Done.', 'Deploying\nDone.'],
  ])('%s still start a line', (_, running, closing, read) => {
    expect(shown(closedUnderOneId(running, closing))).toBe(read);
  });
});
