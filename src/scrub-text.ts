/**
 * What an agent says went wrong, made safe to show a caller. Agents put Python tracebacks, workspace paths
 * and echoed credentials into error text (iac-code passes `str(exception)` through, as an error and as a
 * failed task's status message).
 */

const MAX_MESSAGE_CHARS = 500;

const PATH_PATTERNS: RegExp[] = [
  /file:\/\/[^\s'"`<>]*/g,
  // Windows drive and UNC paths.
  /\b[A-Za-z]:[\\/][^\s'"`<>|]*/g,
  /\\\\[^\s'"`<>|]+/g,
  /~\/[^\s'"`<>()[\]{},;]*/g,
  // POSIX paths with at least two segments, not the path part of a URL (preceded by a host or `:`/`/`).
  /(?<![\w.:/~-])\/[^\s/'"`<>()[\]{},;]+\/[^\s'"`<>()[\]{},;]*/g,
];

const CREDENTIAL_PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]'],
];

/** Cut a stack trace: a Python `Traceback`, `File "..."` frames or JS `    at ...` lines. */
function dropStackTrace(text: string): string {
  const traceback = text.search(/Traceback \(most recent call last\)/);
  const head = traceback >= 0 ? text.slice(0, traceback) : text;
  const lines = head.split(/\r?\n/);
  const stackLine = lines.findIndex((line) => /^\s+at\s+\S/.test(line) || /^\s*File "/.test(line));
  return (stackLine >= 0 ? lines.slice(0, stackLine) : lines).join('\n');
}

/** Upstream text made safe to show a caller: no stack, no local paths, no secrets, bounded length. */
export function sanitizeUpstreamText(text: string, secrets: readonly string[] = []): string {
  let safe = dropStackTrace(text);
  for (const secret of secrets) {
    if (secret.length >= 4) safe = safe.split(secret).join('[redacted]');
  }
  for (const [pattern, replacement] of CREDENTIAL_PATTERNS) safe = safe.replace(pattern, replacement);
  for (const pattern of PATH_PATTERNS) safe = safe.replace(pattern, '[path]');
  // eslint-disable-next-line no-control-regex
  safe = safe.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  return safe.length > MAX_MESSAGE_CHARS ? `${safe.slice(0, MAX_MESSAGE_CHARS - 3)}...` : safe;
}
