import { A2AError, type TaskPushNotificationConfig } from '../model/index.js';

/** RFC 9110 token: header names and auth schemes. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters other than horizontal tab, including CR, LF and NUL (header injection). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** Printable ASCII without space: what a push token, a credential and a callback URL may be made of. */
const VISIBLE_ASCII = /^[\u0021-\u007e]*$/;

export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** Throws -32602 when a value would let a caller inject headers or break the request line. */
export function assertSafeHeaderValue(field: string, value: string): void {
  if (CONTROL.test(value)) {
    throw A2AError.invalidParams(`A2A push ${field} must not contain control characters`, [
      { field, description: 'must not contain CR, LF or other control characters' },
    ]);
  }
}

export function assertHeaderName(name: string): void {
  if (!TOKEN.test(name)) {
    throw A2AError.invalidParams('A2A push header name is not a valid token', [{ field: 'headers', description: 'invalid header name' }]);
  }
}

/**
 * Throws -32602 unless `value` is printable ASCII without spaces. Stricter than a header needs: a
 * token or credential with a space, a tab or a non-ASCII character is a mistake or an attack, and
 * refusing it when the config is created keeps it out of every header and every echo.
 */
export function assertVisibleAscii(field: string, value: string): void {
  if (!VISIBLE_ASCII.test(value)) {
    throw A2AError.invalidParams(`A2A push ${field} must be printable ASCII without spaces or control characters`, [
      { field, description: 'must not contain control characters, spaces or non-ASCII characters' },
    ]);
  }
}

/**
 * The longest token and credentials a config may carry. Each is sent in a header of every delivery (the
 * token twice: X-A2A-Notification-Token and A2A-Notification-Token), and receivers refuse large headers:
 * Node's HTTP server takes 16 KiB of headers in all (431 past it), nginx 8 KiB a line, Apache 8,190
 * bytes a field. At 4 KiB each, both token headers and a Basic Authorization (base64 grows it by a
 * third) still fit in Node's 16 KiB with the rest of the request's headers; a larger secret would be
 * refused by the receiver on every delivery, dead-lettered while its caller was told nothing.
 */
export const MAX_SECRET_CHARS = 4096;
/** Auth schemes are short words (Bearer, Basic, Digest, Negotiate): longer is a mistake or an attack. */
export const MAX_SCHEME_CHARS = 64;

function assertAtMost(field: string, value: string, max: number): void {
  if (value.length > max) {
    throw A2AError.invalidParams(`A2A push ${field} must be at most ${max} characters: it is sent in an HTTP header`, [
      { field, description: `at most ${max} characters` },
    ]);
  }
}

/** The secret fields of a config that end up in headers must be header-safe, and fit in one, before they are stored. */
export function assertConfigHeaderSafe(config: TaskPushNotificationConfig): void {
  if (config.token !== undefined) assertVisibleAscii('token', config.token);
  const auth = config.authentication;
  if (auth) {
    if (!TOKEN.test(auth.scheme)) {
      throw A2AError.invalidParams('A2A push authentication scheme is not a valid token', [
        { field: 'authentication.scheme', description: 'must be an HTTP auth scheme token' },
      ]);
    }
    if (auth.credentials !== undefined) assertVisibleAscii('authentication.credentials', auth.credentials);
  }
}

/**
 * The secrets of a config a caller creates (CreateTaskPushNotificationConfig, inline) fit in a header
 * (MAX_SECRET_CHARS). Checked where callers create configs, not in the stores: a config stored before the
 * bound existed is restored as it is (a 5 KB token still fits Node's 16 KiB of headers).
 */
export function assertConfigFitsHeaders(config: TaskPushNotificationConfig): void {
  if (config.token !== undefined) assertAtMost('token', config.token, MAX_SECRET_CHARS);
  const auth = config.authentication;
  if (!auth) return;
  assertAtMost('authentication.scheme', auth.scheme, MAX_SCHEME_CHARS);
  if (auth.credentials !== undefined) assertAtMost('authentication.credentials', auth.credentials, MAX_SECRET_CHARS);
}

/**
 * Basic credentials as they go in the header. Given as `user:pass` they are base64-encoded here (RFC
 * 7617); without a ':' they cannot be `user:pass` and are taken as already encoded, as the a2a SDKs
 * send them (`<scheme> <credentials>` unchanged): base64's alphabet has no ':', so the two never meet.
 */
const basicCredentials = (credentials: string): string =>
  credentials.includes(':') ? Buffer.from(credentials, 'utf8').toString('base64') : credentials;

/**
 * Headers that authenticate a delivery to the receiver (as iac-code sends them): the config's token
 * as X-A2A-Notification-Token, and Authorization from `authentication`: Basic from `user:pass` or
 * already base64-encoded (basicCredentials), any other scheme as `<scheme> <credentials>`.
 */
export function pushAuthHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  const auth = config.authentication;
  if (auth?.credentials) {
    const scheme = auth.scheme.toLowerCase();
    if (scheme === 'bearer') headers.Authorization = `Bearer ${auth.credentials}`;
    else if (scheme === 'basic') headers.Authorization = `Basic ${basicCredentials(auth.credentials)}`;
    else headers.Authorization = `${auth.scheme} ${auth.credentials}`;
  }
  return headers;
}

/** Merged request headers, each name and value checked; throws -32602 on the first bad one. */
export function safeHeaders(...sets: Array<Record<string, string> | undefined>): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    for (const [name, value] of Object.entries(set ?? {})) {
      assertHeaderName(name);
      assertSafeHeaderValue(`header ${name}`, String(value));
      merged[name.toLowerCase()] = String(value);
    }
  }
  return merged;
}
