/** Keys whose values are secrets wherever they appear in the config tree (a list's entries too). */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token',
  'tokens',
  'basic-password',
  'api-key',
  'api-keys',
  'push-keys',
  'secret',
  'client-secret',
  'private-key',
]);
