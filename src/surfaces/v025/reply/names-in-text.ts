import { isWhiteSpaceCode } from './dense-text.js';

/**
 * Names inside running text that the sentence rules of running-text.ts misread at a boundary: a URL, a path
 * or a ROS resource type (`ALIYUN::ECS::Instance`), whose `:` and `?` are no sentence's end, and a cloud
 * resource id (`vsw-123`) that opens a progress message. Each looks at the word the boundary is in: the
 * shown text from its last blank on.
 */

/** How much of the shown text's last word is read: a URL longer than this is read from its end. */
export const LONGEST_WORD = 512;

/** The shown text's last word: what follows its last white space (at most the last 512 characters). */
export function lastWord(text: string): string {
  const from = Math.max(0, text.length - LONGEST_WORD);
  let at = text.length;
  while (at > from && !isWhiteSpaceCode(text.charCodeAt(at - 1))) at--;
  return text.slice(at);
}

/** A URL's scheme and its colon at the end (`https:`, `oss:`): what follows is `//`, never a new message. */
const ENDS_SCHEME = /(?:^|[^A-Za-z])(?:https?|s?ftp|ftps|file|oss|s3|wss?|ssh|git|redis|mysql|postgres(?:ql)?|mongodb|tcp|udp):$/iu;
/** A drive's letter and colon at the end (`C:`): a `\` after it goes on with a Windows path. */
const ENDS_DRIVE = /(?:^|[^\p{L}\p{N}])[A-Za-z]:$/u;
/** A `::`-joined name cut after its `::` (`ALIYUN::`, `ALIYUN::ECS::`): a sentence never ends so. */
const ENDS_NAME_JOIN = /[A-Za-z0-9]::$/u;
/** A word that is a URL (`https://…`) or a path from the root (`/?Action=…`, `/tmp/…`). */
const URL_OR_PATH = /(?:^|[^A-Za-z])[A-Za-z][\w+.-]*:\/\/\S|^\/[\w.~%-]*[/?]/u;
/** A `?` that opens a URL's query: right after the path's `/`. */
const OPENS_QUERY = /\/\?$/u;
/** A query's parameter (`Action=`, `RegionId=`): what a `?` inside a URL is followed by. */
const QUERY_PARAMETER = /^[\w.%-]+=/u;
/**
 * Words that read as a message of their own: a capitalised word or an acronym, perhaps a comma or a colon
 * after it (`Docs: https://…`, `OK, next`), and a word after a blank.
 */
const READS_AS_MESSAGE = /^(?:\p{Lu}\p{Ll}{2,}|\p{Lu}{2,})[,;:]?[ \t]+\S/u;

/**
 * Whether `text` opens as a whole message's words do (`Creating VPC`, `VPC created`): a model's token is
 * seldom more than a word, and its next word comes after a blank.
 */
export const readsAsMessage = (text: string): boolean => READS_AS_MESSAGE.test(text);

/** Whether `word` is a URL (`https://…`) or a path from the root (`/tmp/…`). */
export const isUrlOrPath = (word: string): boolean => URL_OR_PATH.test(word);

/**
 * Whether `text` goes on with the name `word` ends inside, where the sentence rules would start a line:
 * after a `::`-joined name's `::`, a URL's scheme (`https:` + `//…`), a drive (`C:` + `\Users`), a URL's `?`
 * (`…/?` + `Action=…`, `…?` + `spm=…`), a path's `/` (`bucket/` + `Template.yaml`) and a capital inside a URL
 * (`user-guide/Create` + `Instance.html`): a model cuts its tokens there, and a whole message does not start
 * with `//`, `\` or `Action=`. Words that read as a message of their own (`Creating VPC`) after a URL still
 * start a line. `piece`: the message before is a model's token that cuts a camel-cased name (cutsCapitalisedName).
 */
export function goesOnWithName(word: string, text: string, piece = false): boolean {
  const first = text.charAt(0);
  if (ENDS_NAME_JOIN.test(word)) return /[\p{L}\p{N}]/u.test(first);
  if (ENDS_SCHEME.test(word)) return first === '/';
  if (ENDS_DRIVE.test(word)) return first === '\\';
  if (!isUrlOrPath(word) || readsAsMessage(text)) return false;
  if (word.endsWith('?')) return OPENS_QUERY.test(word) ? /[\p{L}\p{N}%]/u.test(first) : QUERY_PARAMETER.test(text);
  // A query's name cut at its hump before its `=` (`?stack` + `Id=abc&region…`): a message never opens so.
  if (ENDS_QUERY_NAME.test(word) && /^\p{Lu}[\p{L}\p{N}]*=/u.test(text)) return true;
  // What goes on with a name is one word: words after a blank (`/tmp/out` + `Main.tf validated`) are a message's.
  if (/\s\S/u.test(text)) return false;
  if (word.endsWith('/')) return CONTINUES_URL.test(text);
  if (!/\p{Ll}$/u.test(word) || !/\p{Lu}/u.test(first)) return false;
  // A capital after a lower-case letter is a camel-cased word's hump when the URL goes on after the word, or
  // when the tokens before cut a name in it (`?Action=` + `Describe` + `Instances`, `?stack` + `Id`, `/get` +
  // `User`: cutsCapitalisedName). A lone word after a message that holds the whole URL (`…?lang=en` +
  // `Deploying`, `/tmp/out` + `Main`), or a progress word after tokens that end it in a lower-case name (`/zh` +
  // `/ros` + `Deploying`), may be a message of its own: nothing tells it from `?Action=Describe` + `Instances`
  // there, and a line too many reads better.
  return CONTINUES_URL.test(text) || piece;
}

/** A query's lower-case name with no `=` yet at a word's end (`?stack`, `&region`). */
const ENDS_QUERY_NAME = /[?&]\p{Ll}+$/u;
/** Where a name inside a URL opens: after a path's `/`, a query's `?`, `&` or `=`, or a `_` or `-` inside a name. */
const OPENS_NAME = /[/?&=_-]/u;
const NAME_CHAR = /[\p{L}\p{N}]/u;
/**
 * A word that reads as a one-word progress message of its own (`Deploying`, `Validated`, `Done`, `Ready!`),
 * perhaps a sentence's end or an ellipsis after it; or any capitalised word with an ellipsis (`Waiting…`).
 */
const PROGRESS_WORD =
  /^(?:\p{Lu}\p{Ll}+(?:ing|ed)|Done|Ready|Complete|Finished|Success|Failed|Error|Next)[.!:\u2026]*\s*$|^\p{Lu}\p{Ll}*(?:\u2026|\.{3})/u;
/** Names in URLs that end as a progress word does (`toString`, `getSetting`): a camel-cased name's hump. */
const NAME_LIKE_PROGRESS = /^(?:String|Thing|Ring|Setting|Mapping|Binding|Billing|Pricing|Routing|Logging|Tracing|Scaling|Embed|Speed|Feed|Seed)$/u;
const readsAsProgressWord = (text: string): boolean => PROGRESS_WORD.test(text) && !NAME_LIKE_PROGRESS.test(text);

/**
 * Whether `word` ends in a name a capital in `text` is the hump of, camel-cased:
 * - a query's lower-case name with no `=` yet (`?stack` + `Id`, `&region` + `Id`, `?callback` + `Url`): a URL
 *   seldom ends so, also in a message that holds the URL so far;
 * and where the message before, `tail`, holds a piece of `word` (not the whole URL: a message that holds it
 * whole may be followed by a message of its own, `GET /?Action=Describe` + `Instances`):
 * - a name that already holds a capital (`/Create`, `?Action=Describe`, `/getUser`, `?resourceGroup`), or a
 *   lower-case name after a `/`, `=`, `_` or `-` (`/get` + `User`, `-ali` + `Cloud`);
 * unless `text` is a word that reads as a progress message (`/zh` + `/ros` + `Deploying`, `?lang=` + `en` +
 * `Done`, `/getUserInfo` + `Done`): streamed, every URL comes in pieces, and such a message would run into it
 * and change the link. A name's hump that reads so (`/get` + `Started`) starts a line: a line too many.
 */
export function cutsCapitalisedName(word: string, tail: string, text = ''): boolean {
  let at = word.length;
  while (at > 0 && NAME_CHAR.test(word.charAt(at - 1))) at--;
  const name = word.slice(at);
  const opens = word.charAt(at - 1);
  if (name === '' || at === 0 || !OPENS_NAME.test(opens)) return false;
  // A query's lower-case name with no `=` yet is cut even in a message that holds the URL so far (`…/stacks?resource` + `Group`).
  const queryName = (opens === '?' || opens === '&') && /^\p{Ll}+$/u.test(name);
  if (queryName) return isUrlOrPath(word);
  if (tail.endsWith(word) || readsAsProgressWord(text)) return false;
  return /\p{Lu}/u.test(name) || /^\p{Ll}+$/u.test(name);
}

/** A word that goes on as a URL does: a `.`, `/`, `?`, `#`, `&`, `=`, `_`, `%` or `-` and more after it (`Instance.html`). */
const CONTINUES_URL = /^[\p{L}\p{N}]+[./?#&=_%-][\p{L}\p{N}]/u;

/**
 * A cloud resource id that opens a message, whole: a lower-case prefix, `-`, letters and digits with a digit
 * among them, then a blank or the end (`vsw-123 created`, `vpc-bp1abc`, `i-bp1xyz is starting`).
 */
const OPENS_WITH_ID = /^[a-z]{1,6}-(?=[a-z0-9]*\d)[a-z0-9]+(?:\s|$)/u;
/**
 * A whole word at the end, perhaps a sentence's end or a bracket after it: three letters, digits, `_` or `-` or
 * more (`vSwitch`, `vpc-1`, `created.`). A shorter one may be the id's own first letters (`instance r` + `m-bp1xyz`).
 */
const ENDS_WHOLE_WORD = /(?:^|[^\w-])[\w-]{2,}[A-Za-z0-9][.!?)\]\uff09]?$/u;

/**
 * Whether `text` opens with a whole resource id after a whole word (`Creating vSwitch` then `vsw-123
 * created`): a progress message of its own. A model's token that cuts an id opens with a piece of it (`vsw` +
 * `-123`, `vs` + `w-123`, `instance r` + `m-bp1xyz`), and its next word comes after a blank.
 */
export function opensWithResourceId(word: string, text: string): boolean {
  return OPENS_WITH_ID.test(text) && ENDS_WHOLE_WORD.test(word);
}
