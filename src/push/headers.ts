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

/** The secret fields of a config that end up in headers must be header-safe before they are stored. */
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
 * Headers that authenticate a delivery to the receiver (as iac-code sends them): the config's token
 * as X-A2A-Notification-Token, and Authorization from `authentication`. Basic credentials are given
 * as `user:pass` and base64-encoded here; any other scheme is sent as `<scheme> <credentials>`.
 */
export function pushAuthHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  const auth = config.authentication;
  if (auth?.credentials) {
    const scheme = auth.scheme.toLowerCase();
    if (scheme === 'bearer') headers.Authorization = `Bearer ${auth.credentials}`;
    else if (scheme === 'basic') headers.Authorization = `Basic ${Buffer.from(auth.credentials, 'utf8').toString('base64')}`;
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
