import { withoutInternalAddresses } from './internal-addresses.js';
import { ACCESS_KEY_ID, URL_USER_INFO } from './url-credentials.js';

/**
 * What an agent says went wrong, made safe to show a caller. Agents put Python tracebacks, workspace paths
 * and echoed credentials into error text (iac-code passes `str(exception)` through, as an error and as a
 * failed task's status message).
 */

/**
 * How many characters (UTF-16 code units, cut at a character's boundary) of a scrubbed text a caller gets.
 * A failed task's reason is read by a user: a deployment that lists what failed and why runs long (30
 * resources in Chinese: 1,300 characters; 1,000 cut such a report short), so the bound leaves room for
 * such a report and still keeps a text dumped whole (a log, a template) out of an answer. gRPC cuts an
 * error's message again to what its trailers carry (surfaces/grpc/status.ts).
 */
export const MAX_MESSAGE_CHARS = 4_000;
/**
 * How much of a long text is scrubbed (and then cut to MAX_MESSAGE_CHARS): the path rules look back
 * along a run of non-blank characters, which on a long text without blanks takes time that grows with its
 * square (a 170 KB text took 1.4 s).
 */
const MAX_SCANNED_CHARS = 8_000;

/** A path's segment: the characters of file and directory names (ASCII, so a Chinese "元/小时/台" is not one). */
const SEGMENT = String.raw`[\w.@%+~-]+`;

/** Not a well-known URL's path: `/.well-known/` and one name (not `..`), with nothing after it that a path would go on with. */
const NOT_WELL_KNOWN = String.raw`(?!\/\.well-known\/[\w-][\w.-]*(?![\w.@%+~\/\\-]))`;

const PATH_PATTERNS: RegExp[] = [
  /file:\/\/[^\s'"`<>]*/g,
  // Windows drive and UNC paths; with forward slashes, two levels at least (not "选项A:/B").
  new RegExp(String.raw`\b[A-Za-z]:(?:\\|\/(?=${SEGMENT}\/))(?:${SEGMENT}[\\/]?)*`, 'g'),
  new RegExp(String.raw`\\\\${SEGMENT}(?:\\${SEGMENT})*`, 'g'),
  new RegExp(String.raw`~\/(?:${SEGMENT}\/?)*`, 'g'),
  // Relative paths that say they are (`./config/local.yaml`, `../app/main.py`), not a URL's dot segments.
  new RegExp(String.raw`(?<![\w./])\.\.?\/${SEGMENT}(?:\/${SEGMENT})*\/?`, 'g'),
  // POSIX paths with at least two segments, but not: the path part of a URL (after a host, `:` or `/`), a
  // URL's query value (`?redirect_uri=/cb/done`), an HTTP API's path (`POST /api/v1/stacks`), or a
  // well-known URL (`/.well-known/agent-card.json`, RFC 8615: the card the gateway names when it is refused).
  new RegExp(
    String.raw`(?<![\w.:/~&?-])(?<!(?:[?&]|:\/\/)\S*=)(?<!\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) )(?!\/(?:api|v\d+)\/)${NOT_WELL_KNOWN}\/${SEGMENT}\/(?:${SEGMENT}\/?)*`,
    'g',
  ),
];

/**
 * The name of a value that is secret: `alibaba_cloud_access_key_secret`, `password`, `DB_TOKEN`, a header's
 * `X-API-Key` or `Cookie`; not
 * `tokens`, nor a name that says it names, counts or points at one (`secret_name`, `token_id`, `api_key_arn`).
 */
const SECRET_NAME = String.raw`\b(\w*(?:secret|password|passwd|token|api[_-]?key|access[_-]?key|private[_-]?key|cookie)(?!s)\w*)(?<![_-](?:name|names|id|ids|arn|type|length|count|ref))`;

/**
 * Chinese, Japanese and Korean letters: a value under a secret name that begins with one is natural language
 * (`密码 password=必须包含大写字母` says what the password must be), not a secret.
 */
const STARTS_NATURAL = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/**
 * What ends a value under a secret name, besides a blank, a quote, `,` and `;`: CJK sentence punctuation and
 * the ideographic space (`password=hunter2，请重试`). Not full-width letters and digits (an input method
 * types a password so: `Ｐａｓｓ１２３`), nor CJK brackets (a quoted value: `「S3cr3t」`).
 */
const ENDS_VALUE_CJK = String.raw`\u3000\u3001\u3002\uff0c\uff1b\uff1a\uff01\uff1f`;

/**
 * Words that say something about a secret, not what it is: `password: must be 8-32 characters`,
 * `Invalid token: please sign in again`, `api_key: missing`. A value under a secret name that is one of
 * them (whatever its case, a full stop or colon after it) is left as it is.
 */
const PROSE_WORDS = new Set(
  (
    'a an the this that it its is are was were be been being has have had do does did not no nor never ' +
    'must should shall can cannot could would will may might need needs needed please try retry ' +
    'required invalid expired expires missing empty blank absent unset none null undefined wrong incorrect ' +
    'rejected revoked denied refused unknown malformed unsupported mismatch mismatched too only also still ' +
    'already and or if when for of to in on at by with without from as contain contains include includes ' +
    'match matches see check use enter provide provided sign set given'
  ).split(' '),
);

/** A value under a secret name that is a word of prose (PROSE_WORDS), not a secret. */
function isProseWord(value: string): boolean {
  const word = /^([A-Za-z]+)[.!?:]*$/.exec(value);
  return word !== null && PROSE_WORDS.has(word[1]!.toLowerCase());
}

/** Prose words that say what state a secret is in: one of them alone (`api_key: missing`) is no password. */
const STATE_WORDS = new Set(
  'required invalid expired missing empty blank absent unset none null undefined wrong incorrect rejected revoked denied refused unknown malformed unsupported mismatch mismatched'.split(
    ' ',
  ),
);

/**
 * Whether a value under a secret name is prose: a state word (`missing`), or a word of prose that a sentence
 * goes on from (`must be 8-32 characters`, `please sign in`). Alone, `please` or `Must!` may be the password.
 */
function isProse(value: string, after: string): boolean {
  if (!isProseWord(value)) return false;
  const word = /^[A-Za-z]+/.exec(value)![0].toLowerCase();
  return STATE_WORDS.has(word) || /^[ \t]+\p{L}/u.test(after);
}

/**
 * How much of a value is the secret when CJK letters follow it (`hunter2必须更换`: what follows says
 * something of it): up to the first CJK letter when nothing but CJK text follows; the whole value when Latin
 * letters or digits come after the CJK ones (`Abc密码123xyz` is one password).
 */
function secretPart(value: string): string {
  const at = value.search(CJK_LETTER);
  if (at <= 0) return value;
  return /[A-Za-z0-9]/.test(value.slice(at)) ? value : value.slice(0, at);
}
const REDACTED = '[redacted]';
const CLOSERS_ONLY = /^[)\]}\uff09\u300d\u300f\u3011\u300b\u201d]*$/u;

/**
 * A value that is Chinese, Japanese or Korean words (`必须包含大写字母`, `至少8位`), not a secret: it begins with
 * a CJK letter and holds no run of three Latin letters or digits (`密码abc123` is a password).
 */
const isNaturalLanguage = (value: string): boolean => STARTS_NATURAL.test(value) && !/[A-Za-z0-9]{3,}/.test(value);
/** Opening brackets and quotes a value may stand in. */
const OPENING_MARKS = /^[([{\uff08\u300c\u300e\u3010\u300a\u201c]+/u;
const CJK_LETTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const CLOSING: Record<string, string> = {
  ')': '(',
  ']': '[',
  '}': '{',
  '\uff09': '\uff08',
  '\u300d': '\u300c',
  '\u300f': '\u300e',
  '\u3011': '\u3010',
  '\u300b': '\u300a',
  '\u201d': '\u201c',
};
/** How far before a value its brackets are looked for, and how many closing ones it may end with: bounded work per match. */
const BRACKET_LOOK_BACK = 256;
const MAX_CLOSERS = 8;

/**
 * How many of a value's last characters are brackets that close one opened before the value, in the text
 * before it (`(password=hunter2)`): they are the text's, not the value's. A bracket that closes one opened in
 * the value itself (`pa(ss)`) is the value's.
 */
function closersAfter(value: string, before: string): number {
  let kept = value.length;
  while (kept > 0 && value.length - kept < MAX_CLOSERS) {
    const closer = value[kept - 1]!;
    const opener = CLOSING[closer];
    if (opener === undefined) break;
    const inValue = value.slice(0, kept);
    if (inValue.split(opener).length > inValue.split(closer).length - 1) break;
    if (before.split(opener).length - before.split(closer).length <= 0) break;
    kept -= 1;
  }
  return value.length - kept;
}

/**
 * `alibaba_cloud_access_key_secret=…`, `password: …`: the value under a name that says it is secret, up to a
 * blank, a quote, `,` or `;`, or CJK sentence punctuation; redacted unless it is natural language (a CJK
 * letter first) or prose (isProse), without a bracket closing one opened before the name, and without the CJK
 * words that follow it (secretPart).
 */
function redactNamedValue(match: string, ...found: unknown[]): string {
  const [name, separator, value, offset, text] = found as [string, string, string, number, string];
  // Redacted already (a configured secret, a key that says what it is): whatever follows it is redacted too.
  if (value.startsWith(REDACTED)) return CLOSERS_ONLY.test(value.slice(REDACTED.length)) ? match : `${name}${separator}${REDACTED}`;
  // An opening bracket or quote is the text's (`password:（必须包含…）`, `password=「S3cr3t」`), not the value's.
  const opening = OPENING_MARKS.exec(value)?.[0] ?? '';
  const inner = value.slice(opening.length);
  if (isNaturalLanguage(inner)) return match;
  // Brackets the value ends with that close its opening ones or ones opened before the name are the text's.
  const closers = closersAfter(inner, text.slice(Math.max(0, offset - BRACKET_LOOK_BACK), offset) + opening);
  const bare = inner.slice(0, inner.length - closers);
  if (isProse(bare, text.slice(offset + match.length))) return match;
  const secret = secretPart(bare);
  return `${name}${separator}${opening}[redacted]${bare.slice(secret.length)}${value.slice(value.length - closers)}`;
}

/** The value of an Authorization header, unless every word of it is prose (`Authorization: missing or invalid`). */
function redactAuthorization(match: string, ...found: unknown[]): string {
  const [name, value] = found as [string, string];
  const words = value.trim().split(/\s+/);
  return words.every((word) => isProseWord(word)) ? match : `${name}[redacted]`;
}

/** What a credential's match becomes: a replacement pattern, or a function of the match and its groups (String.replace's). */
type Replacement = string | ((match: string, ...found: unknown[]) => string);

const CREDENTIAL_PATTERNS: Array<[RegExp, Replacement]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, '[redacted]'],
  [URL_USER_INFO, '$1[redacted]@'],
  // Tokens and keys that say what they are: GitHub's, an AWS or Alibaba Cloud key id with its secret after a colon.
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, '[redacted]'],
  [new RegExp(String.raw`${ACCESS_KEY_ID}(?::[^\s"',;]+)?`, 'g'), '[redacted]'],
  [/\b((?:Proxy-)?Authorization["']?\s*[=:：＝]\s*["']?)([^\r\n"',;]+)/gi, redactAuthorization],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]'],
  // A JSON Web Token says what it is (a header and a claims set in base64url JSON), whatever names it.
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  // `password: "three word phrase"`: a quoted value, whole.
  [new RegExp(String.raw`${SECRET_NAME}(["']?\s*[=:：＝]\s*)(["'])[^"'\r\n]*\3`, 'gi'), '$1$2$3[redacted]$3'],
  // `alibaba_cloud_access_key_secret=…`, `password: …`: a value under a name that says it is secret.
  [new RegExp(String.raw`${SECRET_NAME}(["']?\s*[=:：＝]\s*["']?)([^\s"',;${ENDS_VALUE_CJK}]+)`, 'giu'), redactNamedValue],
];

/** A JS stack frame: `    at fn (file.js:1:2)`, `    at file.js:1:2`, `    at async Promise.all (index 0)`. */
const JS_FRAME = /^\s+at\s.*(?::\d+:\d+\)?|\((?:native|index \d+)\))$/;

/**
 * Line breaks, also written out (`\n` as two characters): an agent that puts a Python repr or a JSON text
 * into its error message escapes the breaks of the traceback it carries.
 */
const LINE_BREAK = /\r\n|\r|\n|\\r\\n|\\n|\\r/g;

/** The lines of a text, each with the offset where the break before it begins (0 for the first). */
function linesOf(text: string): Array<{ line: string; cut: number }> {
  const lines: Array<{ line: string; cut: number }> = [];
  let start = 0;
  let cut = 0;
  for (const found of text.matchAll(LINE_BREAK)) {
    lines.push({ line: text.slice(start, found.index), cut });
    cut = found.index;
    start = found.index + found[0].length;
  }
  lines.push({ line: text.slice(start), cut });
  return lines;
}

/**
 * Cut a stack trace: a Python `Traceback`, `File "..."` frames or JS `    at ...` lines. A Python traceback
 * ends with the exception it reports (`ValueError: ...`): that line is the reason, and is kept.
 */
function dropStackTrace(text: string): string {
  const traceback = text.search(/Traceback \(most recent call last\)/);
  const head = traceback >= 0 ? text.slice(0, traceback) : text;
  const stackLine = linesOf(head).find(({ line }) => JS_FRAME.test(line) || /^\s*File "/.test(line));
  const kept = stackLine ? head.slice(0, stackLine.cut) : head;
  const raised = traceback >= 0 ? raisedException(text.slice(traceback)) : undefined;
  return raised && !kept.includes(raised) ? `${kept.trimEnd()}\n${raised}`.trim() : kept;
}

/** The exception a Python traceback ends with: its last line that is not indented (frames and code are). */
function raisedException(traceback: string): string | undefined {
  const lines = linesOf(traceback)
    .slice(1)
    .map(({ line }) => line);
  const last = lines.findLast((line) => line.trim() !== '');
  return last !== undefined && /^\S/.test(last) && !/^(?:Traceback|During handling|The above exception)/.test(last) ? last.trim() : undefined;
}

export interface ScrubOptions {
  /** Keep private network addresses (internal-addresses.ts): the operator's log names the agent's side of the network. */
  keepAddresses?: boolean;
}

/** Upstream text made safe to show a caller: no stack, no local paths, no secrets, no private network addresses, bounded length. */
export function sanitizeUpstreamText(text: string, secrets: readonly string[] = [], options: ScrubOptions = {}): string {
  let safe = dropStackTrace(text);
  const long = safe.length > MAX_SCANNED_CHARS;
  // Cut at a blank where there is one, so that no secret or path is cut in two and missed.
  if (long) safe = safe.slice(0, Math.max(safe.lastIndexOf(' ', MAX_SCANNED_CHARS), MAX_SCANNED_CHARS / 2));
  for (const secret of secrets) {
    if (secret.length >= 4) safe = safe.split(secret).join('[redacted]');
  }
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) {
    safe = typeof replacement === 'string' ? safe.replace(pattern, replacement) : safe.replace(pattern, replacement);
  }
  for (const pattern of PATH_PATTERNS) safe = safe.replace(pattern, '[path]');
  // After the paths: a URL's host made a placeholder would no longer tell its path from a local one.
  if (!options.keepAddresses) safe = withoutInternalAddresses(safe);
  // eslint-disable-next-line no-control-regex
  safe = safe.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  // A lone surrogate (half of a character, cut off upstream) is no Unicode: U+FFFD stands in for it.
  safe = safe.replace(/\p{Cs}/gu, '\ufffd');
  return safe.length > MAX_MESSAGE_CHARS || long ? `${cutAtCodePoint(safe, MAX_MESSAGE_CHARS - 3)}...` : safe;
}

/**
 * A text cut to at most `max` UTF-16 code units, never between the two halves of a character outside the
 * BMP (an emoji, a rare CJK ideograph): a lone surrogate is no Unicode, and a JSON or gRPC encoder may refuse it.
 */
export function cutAtCodePoint(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
