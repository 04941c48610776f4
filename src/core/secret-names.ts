/**
 * Whether a metadata key names a secret value: judged by the words it ends in, however it is written
 * (`alibaba_cloud_access_key_secret`, `X-API-Key`, `sessionToken`, `passwordHash`). A substring test
 * took counters and settings for secrets (`usage.totalTokens`, `tokenizer`, `passwordPolicy`,
 * `credentialsNeeded`), and a 1.0 caller read `[REDACTED]` in place of an agent's token usage.
 */

/** Words a key may end in when the value is the secret itself. */
const SECRET_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'token',
  'credential',
  'credentials',
  'apikey',
  'cookie',
  'authorization',
]);
/** The word before a final `key` that makes it a secret key (`api_key`, `privateKey`), not a lookup key. */
const KEY_KINDS = new Set(['api', 'private', 'secret', 'access', 'signing', 'encryption']);
/** Words after a secret's name that still name its value, in some form (`password_hash`, `token_b64`). */
const VALUE_FORMS = new Set(['value', 'hash', 'b64', 'base64', 'plain', 'raw', 'str', 'string', 'text', 'data']);

/** `alibabaCloudAPIKey` → alibaba cloud api key; `X-API-Key` → x api key; `db_password` → db password. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** Metadata repeats its keys from message to message: each is judged once (bounded, as keys come from agents). */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 2_000;

export function namesSecret(key: string): boolean {
  let secret = judged.get(key);
  if (secret === undefined) {
    secret = endsInSecret(keyWords(key));
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(key, secret);
  }
  return secret;
}

function endsInSecret(words: readonly string[]): boolean {
  let end = words.length;
  while (end > 1 && VALUE_FORMS.has(words[end - 1]!)) end--;
  const last = words[end - 1];
  if (last === undefined) return false;
  if (SECRET_WORDS.has(last)) return true;
  return last === 'key' && KEY_KINDS.has(words[end - 2] ?? '');
}
