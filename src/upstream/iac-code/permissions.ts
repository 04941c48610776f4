import { withFields, type Part } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { pendingInput } from './events.js';
import { textField } from './fields.js';

/**
 * iac-code's interactive permission prompt (docs/iac-code.md, "Permission prompts"): before a tool
 * runs, the turn pauses in INPUT_REQUIRED with the question in `metadata.iac_code.input`, and the
 * answer must be one `application/json` data part naming the prompt and the decision.
 */
export interface PermissionRequest {
  requestTaskId: string;
  inputId: string;
  toolUseId: string;
  /** iac-code's question; absent when it sent none (the facade then asks in its own words). */
  prompt?: string;
  toolName?: string;
  /** The language iac-code wrote the prompt and its labels in (`en`, `zh`, ...), when it says. */
  language?: string;
  /** An option without a label is named by whoever shows it. */
  options: { id: string; label?: string }[];
}

/** The permission prompt a task or status update is waiting on, if any. */
export function pendingPermission(metadata: JsonObject | undefined): PermissionRequest | undefined {
  const input = pendingInput(metadata, 'permission');
  if (!input) return undefined;
  const requestTaskId = textField(input.requestTaskId);
  const inputId = textField(input.inputId);
  const toolUseId = textField(input.toolUseId);
  if (!requestTaskId || !inputId || !toolUseId) return undefined;
  const options = (Array.isArray(input.options) ? input.options : []).filter(isRecord).flatMap((option) => {
    const id = textField(option.id);
    const label = textField(option.label);
    return id ? [label ? { id, label } : { id }] : [];
  });
  const prompt = textField(input.prompt) ?? textField(input.title);
  const toolName = textField(input.toolName);
  const language = textField(input.language);
  return withFields(
    { requestTaskId, inputId, toolUseId, options: options.length > 0 ? options : DEFAULT_OPTIONS },
    withFields(prompt ? { prompt } : {}, withFields(toolName ? { toolName } : {}, language ? { language } : {})),
  );
}

const DEFAULT_OPTIONS = [{ id: 'allow_once' }, { id: 'deny' }];

/** Words people answer a yes/no question with, beyond the options' own ids and labels. */
const YES = new Set([
  ...['yes', 'y', 'yep', 'yeah', 'ok', 'okay', 'allow', 'allow it', 'approve', 'approve it', 'sure', 'go ahead', 'do it', 'proceed'],
  ...['please', 'please do', 'yes please'],
  ...['是', '是的', '对', '好', '好的', '行', '允许', '同意', '可以', '可以的', '没问题', '确认', '许可'],
  // A suggestion's 吧 is a yes here; after 是, 对 or 可以 it may ask back ("是吧" is "right?"), so it is not stripped.
  ...['好吧', '行吧', '允许吧', '同意吧'],
  // Go-aheads to the run the prompt asks about ("好的，执行吧", "可以，请执行"). Each is listed whole: a refusal
  // wraps the same word ("不确定" is "not sure", "不要继续", "别执行"), so no word is looked for inside a reply.
  ...['确定', '确定吧', '嗯', '嗯嗯', '继续', '继续吧', '请继续', '继续执行', '执行', '执行吧', '请执行', '可以执行', '确认执行'],
  // The answer in the question's own words ("是否允许本次操作：…？"), or its verb with the run's.
  ...['允许执行', '同意执行', '允许本次操作', '同意本次操作'],
  // Not いいです or いいよ: in Japanese they as often decline ("no, I'm fine").
  ...['はい', 'うん', 'ええ', '許可', '許可します', 'お願いします', 'どうぞ'],
  // An emoji stands as a piece of its own ("好的👌", "允許 👍"); only these read as a yes.
  ...['👍', '👌', '✅'],
]);
const NO = new Set([
  ...['no', 'n', 'nope', 'nah', 'deny', 'deny it', 'reject', 'reject it', 'cancel', "don't", 'do not', 'no thanks', 'stop'],
  ...['否', '不', '不要', '拒绝', '取消', '不允许', '不可以', '不同意', '不行', '不用', '别', '算了', '不用了', '不要了', '别写了'],
  // A suggestion's 吧 after a refusal is a refusal ("拒绝吧": "deny it, then").
  ...['拒绝吧', '不允许吧', '不同意吧', '取消吧', '算了吧', '不用了吧'],
  // The go-aheads above, refused: never read as consent, and no reason to ask again.
  ...['不要继续', '别继续', '不继续', '不执行', '别执行', '不要执行', '先不要', '先别', '先别执行', '先不执行'],
  ...['拒绝执行', '不允许执行', '不同意执行', '拒绝本次操作', '不允许本次操作', '不同意本次操作'],
  ...['いいえ', '拒否', '拒否します', 'やめて', 'だめ', 'ダメ', 'キャンセル', 'キャンセルして', 'キャンセルします'],
  ...['👎', '❌'],
]);
/**
 * "Always allow" in words: consent beyond this one run. iac-code's prompts offer `allow_once` and `deny`,
 * so without an `allow_always` option it allows this once (less than was granted, never more) instead of
 * asking a user who did answer for an answer again.
 */
const ALWAYS = new Set([
  ...['always allow', 'allow always', 'always', 'always approve', 'always yes', 'allow all', 'allow for good'],
  ...['总是允许', '始终允许', '一直允许', '永远允许', '永久允许', '总是同意', '始终同意', '全部允许'],
  ...['常に許可', '常に許可する', '常に許可します', 'いつも許可', 'ずっと許可'],
]);
/** What a Chinese answer may open with that changes nothing: "then" ("那就拒绝吧"); not a bare 那 ("那是…" is "that is…"). */
const THEN = /^那就(?=\S)/u;
/** What a Chinese reply may end with that changes nothing ("好啊"). */
const PARTICLE = /[呀啊哦]$/u;
/** A reply that asks back ("ok?", "可以？") or trails off ("ok...", "好吧……") has not decided. */
const UNDECIDED = /[?？]|\.\s*\.|…|。\s*。/u;
/** One emoji, with its skin tone, presentation selector and joined parts: a piece of a reply of its own. */
const EMOJI = /\p{Extended_Pictographic}(?:[\p{Emoji_Modifier}\uFE0F]|\u200D\p{Extended_Pictographic})*/gu;
/** More words than a short reply has: a longer one says more than yes (and is not worth reading word by word). */
const MAX_YES_WORDS = 12;
/** What makes 👍🏽 or ✅️ look different from 👍 or ✅ without saying anything else. */
const EMOJI_STYLE = /[\p{Emoji_Modifier}\uFE0F]/gu;

/**
 * A piece said in yes-words only, one after another ("yes please go ahead"): `always` when one of them says
 * so. Only consent is read this way: a refusal word turns the word after it around ("don't stop"), so a
 * refusal is one listed piece.
 */
function yesWords(piece: string): 'yes' | 'always' | undefined {
  const words = piece.split(' ');
  if (words.length > MAX_YES_WORDS) return undefined;
  // reached[i]: how the first i words read when they are whole yes-phrases, one after another.
  const reached: ('yes' | 'always' | undefined)[] = ['yes'];
  for (let end = 1; end <= words.length; end += 1) {
    for (let start = 0; start < end && reached[end] !== 'always'; start += 1) {
      const before = reached[start];
      const phrase = words.slice(start, end).join(' ');
      if (!before || !(YES.has(phrase) || ALWAYS.has(phrase))) continue;
      reached[end] = before === 'always' || ALWAYS.has(phrase) ? 'always' : 'yes';
    }
  }
  return reached[words.length];
}

/**
 * A reply that says yes, or no, in every piece of it ("好的，允许吧", "Yes, go ahead"), `always` when a yes
 * says so in one of them ("Yes, always allow"); undefined when it says anything else.
 */
function yesOrNo(said: string): 'yes' | 'always' | 'no' | undefined {
  if (UNDECIDED.test(said)) return undefined;
  const pieces = said
    .replace(EMOJI, (emoji) => `,${emoji.replace(EMOJI_STYLE, '')},`)
    .split(/[,，、;；.。!！]+/u)
    .map((piece) => unquoted(piece).replace(PARTICLE, '').replace(THEN, ''))
    .filter((piece) => piece !== '');
  if (pieces.length === 0) return undefined;
  const yeses = pieces.map(yesWords);
  if (yeses.every((yes) => yes !== undefined)) return yeses.includes('always') ? 'always' : 'yes';
  return pieces.every((piece) => NO.has(piece)) ? 'no' : undefined;
}

/**
 * The option a plain yes picks: allowing this once. Never `allow_always`: a bare "yes" does not grant
 * what the person was not shown to be granting for good; they name that option to pick it.
 */
function allowOnce(options: readonly { id: string }[]): string | undefined {
  return (
    options.find((option) => option.id === 'allow_once') ?? options.find((option) => option.id.startsWith('allow') && option.id !== 'allow_always')
  )?.id;
}

function alwaysOrOnce(options: readonly { id: string }[]): string | undefined {
  return options.find((option) => option.id === 'allow_always')?.id ?? allowOnce(options);
}

/** Quotes around a reply or a piece of one: an option's label copied as shown (“仅允许一次”, 「许可」, "Allow once"). */
const QUOTES = /^["'“”‘’「」『』]+|["'“”‘’「」『』]+$/gu;

const unquoted = (value: string): string => value.trim().replace(QUOTES, '').trim();

const normalise = (value: string): string =>
  unquoted(
    unquoted(value)
      .toLowerCase()
      .replace(/[\s_]+/g, ' ')
      .replace(/[!！]+$/u, '')
      // One closing stop; two or more trail off (UNDECIDED).
      .replace(/(?<![.。]\s*)[.。]$/u, ''),
  );

/**
 * The option a reply picks: an option's id or label, another name the one who asked gave it (`namesOf`),
 * or a plain yes or no in every piece of the reply; undefined when it picks none. Not a number: the
 * prompt as shown does not number its options.
 */
export function chosenOption(
  request: PermissionRequest,
  reply: string,
  namesOf: (optionId: string) => readonly string[] = () => [],
): string | undefined {
  const said = normalise(reply);
  const named = (option: { id: string; label?: string }): boolean =>
    [option.id, option.label ?? option.id, ...namesOf(option.id)].some((name) => normalise(name) === said);
  const exact = request.options.find(named);
  if (exact) return exact.id;
  const deny = request.options.find((option) => option.id === 'deny');
  const answer = yesOrNo(said);
  if (answer === 'always') return alwaysOrOnce(request.options);
  return answer === 'yes' ? allowOnce(request.options) : answer === 'no' ? deny?.id : undefined;
}

/** The data part iac-code reads as the answer (exactly these six keys). */
export function permissionAnswer(request: PermissionRequest, decision: string): Part {
  return {
    data: {
      schemaVersion: 1,
      kind: 'permission',
      requestTaskId: request.requestTaskId,
      inputId: request.inputId,
      toolUseId: request.toolUseId,
      decision,
    },
    mediaType: 'application/json',
  };
}
