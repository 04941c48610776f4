/**
 * The fake iac-code naming its conversation's workspace folder in its own words, as the real one does
 * ("我已将模板写入 /srv/…/ctx-4992…/main.tf"): the folder depends on the conversation, which the gateway
 * names, so a test sets the words before each turn (`say`) and the fake reads them when the turn starts.
 * A helper of its own so that the fake itself stays as it is: its script is read per turn
 * (fake-iac-code-data.ts), and a getter is all it takes.
 */
import type { TurnScript } from './fake-iac-code-data.js';

export interface Words {
  /** Text chunks before the tool call that writes the file. */
  before: string[];
  /** Text chunks after it; iac-code restates them whole at the end (its `assistantFinal`). */
  after?: string[];
  /** The model's provider fails after `before` with this text (fake-iac-code-data.ts, TurnScript.error). */
  error?: string;
}

export interface SpeakingScript {
  /** Give this to `startFakeIacCode({ script })`. */
  script: TurnScript;
  /** What the next turns say, until told otherwise. */
  say(words: Words): void;
}

export function speakingScript(filename = 'main.tf'): SpeakingScript {
  let current: Words = { before: ['Hello.'] };
  const script = {
    artifact: { filename },
    get before() {
      return current.before;
    },
    get after() {
      return current.after ?? [];
    },
    get error() {
      return current.error === undefined ? undefined : { text: current.error };
    },
  } as TurnScript;
  return {
    script,
    say(words) {
      current = words;
    },
  };
}

/**
 * `text` cut in two at every position from `from` to `to` (a piece is never empty), then cut into
 * single characters: every way a path inside it can be split between two chunks, and between many.
 */
export function cutsOf(text: string, from = 1, to = text.length - 1): string[][] {
  const cuts: string[][] = [];
  for (let at = Math.max(1, from); at <= Math.min(to, text.length - 1); at++) cuts.push([text.slice(0, at), text.slice(at)]);
  cuts.push([...text]);
  return cuts;
}
