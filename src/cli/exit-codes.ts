import { ConfigError } from '../config/config-error.js';
import { withoutUrlCredentials } from '../url-credentials.js';

/**
 * Exit codes every command shares, so scripts can branch on them:
 * 0 done; 1 the work itself failed (a task ended failed/rejected, a lint rule failed, a runtime error);
 * 2 the command line or configuration is wrong, or the gateway could not start;
 * 3 the agent could not be reached or answered with a protocol error;
 * 4 the agent asks for authorization (auth-required), or refused the credentials given (HTTP 401/403).
 */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;
export const EXIT_NEEDS_INPUT = 4;

/** 401 or 403: the agent turned the request away for its credentials (missing or wrong), whatever the command. */
export const isCredentialsRefused = (status: number | undefined): status is 401 | 403 => status === 401 || status === 403;

/**
 * Absolute paths and file: URLs in a message become their last segment: an operator needs the name, not our layout.
 * Only a path of its own (at the start, or after a space, a quote, a bracket...): a URL's path and a relative
 * path's rest (`mappings/profiles/x.json`) are part of what they name, and stay whole.
 */
export function withoutPaths(message: string): string {
  return message.replace(/(?<![\w.:/-])(?:file:\/\/)?(?:\/[^\s/:'"()]+)+\/([^\s/:'"()]+)/g, '$1');
}

/** One line: the first line of an error's message, without paths. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return withoutPaths(message.split('\n')[0] ?? '').trim() || 'unknown error';
}

/**
 * One line for what stopped the start (or check-config). The operator's own problems keep their paths,
 * which are what to fix: a ConfigError (worded to be printed: the setting, its file or folder, the errno,
 * never a secret) and an fs error on a file the config named (`EACCES: permission denied, mkdir '/srv/x'`).
 * Anything else (a module that failed to load, an agent's words) is oneLine, without paths.
 */
export function startupLine(error: unknown): string {
  const fsError = error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string' && 'path' in error;
  if (!(error instanceof ConfigError) && !fsError) return oneLine(error);
  return error.message.split('\n')[0]?.trim() || 'unknown error';
}

/**
 * What the CLI prints about the agent: every URL in it without the credentials the operator may have
 * typed into it (`https://user:secret@host`, `?key=…`), which would otherwise end up in terminals and CI logs.
 */
export const shown = (text: string): string => withoutUrlCredentials(text);

/** Writes `a2a-bridge: <text>` to stderr, URL credentials redacted. */
export function complain(text: string): void {
  process.stderr.write(`a2a-bridge: ${shown(text)}\n`);
}
