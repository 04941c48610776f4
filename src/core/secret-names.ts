/**
 * Whether a metadata key names a secret value, however the key is written (`alibaba_cloud_access_key_secret`,
 * `X-API-Key`, `sessionToken`, `dbpassword`, `password2`, `refreshTokens`, `password_confirmation`), and not
 * one that only names something about a secret (`token_count`, `secretName`, `passwordPolicy`, `token_url`)
 * or a word that merely starts like one (`tokenizer`). A plain substring test took an agent's counters and
 * settings for secrets, and a 1.0 caller read `[REDACTED]` in place of its token usage. Metadata is what
 * callers read, so the rule is precise; the log's (log.ts) stays a substring test: a log field redacted in
 * excess costs no one anything.
 */

/** The name of a secret, inside a key's words joined by `_` (longer forms first: `secret_key` before `secret`). */
const SECRET_STEM =
  /(?:api|private|secret|access|signing|encryption|master|hmac|ssh)_?key|secret|passw(?:or)?d|passphrase|token|credential|cookie|authorization/g;
/** What may follow a secret's name inside its word: nothing, or a plural (`tokens`, `credentials`). */
const SAME_WORD_ENDINGS = new Set(['', 's', 'es']);
/** Words after a secret's name that say the value is about the secret, not the secret (`token_count`, `api_key_id`). */
const ABOUT_A_SECRET = new Set(
  (
    'name names id ids arn type types length count counts ref refs policy policies needed required expiry expires expired ' +
    'expiration at ttl url uri urls endpoint enabled hint format header headers source limit limits usage used status kind ' +
    'mode file path prefix set'
  ).split(' '),
);

/** `alibabaCloudAPIKey` → alibaba cloud api key; `X-API-Key` → x api key; `password2` → password; `api_key_v2` → api key. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !/^v?\d+$/.test(word))
    .map((word) => word.replace(/\d+$/, ''));
}

/** How a key names a secret: not at all, as one (`password`), or as many (`tokens`: a count when its value is a number). */
export type SecretName = 'none' | 'one' | 'many';

function judge(key: string): SecretName {
  const joined = keyWords(key).join('_');
  let last: RegExpExecArray | undefined;
  for (const match of joined.matchAll(SECRET_STEM)) last = match;
  if (last === undefined) return 'none';
  const after = joined.slice(last.index + last[0].length);
  const [sameWord = '', nextWord] = after.split('_');
  if (!SAME_WORD_ENDINGS.has(sameWord)) return 'none';
  if (nextWord !== undefined && ABOUT_A_SECRET.has(nextWord)) return 'none';
  return sameWord === '' ? 'one' : 'many';
}

/** Metadata repeats its keys from message to message: each is judged once (bounded, as keys come from agents). */
const judged = new Map<string, SecretName>();
const MAX_JUDGED = 2_000;

export function secretName(key: string): SecretName {
  let name = judged.get(key);
  if (name === undefined) {
    name = judge(key);
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(key, name);
  }
  return name;
}
