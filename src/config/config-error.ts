/** A configuration problem the operator must fix; its message is safe to print (never a secret value). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
