/** The credentials the fake iac-code (fake-iac-code.ts) may demand on every route, its card included. */
import type { IncomingHttpHeaders } from 'node:http';

export interface FakeIacCodeAuth {
  token?: string;
  basicUsername?: string;
  basicPassword?: string;
  apiKey?: string;
  apiKeyHeader?: string;
}

/** Whether `headers` carry one of the credentials `auth` names; anything passes when it names none. */
export function authorized(auth: FakeIacCodeAuth | undefined, headers: IncomingHttpHeaders): boolean {
  if (!auth || (!auth.token && !(auth.basicUsername && auth.basicPassword) && !auth.apiKey)) return true;
  const authorization = headers.authorization ?? '';
  if (auth.token && authorization === `Bearer ${auth.token}`) return true;
  if (auth.basicUsername && auth.basicPassword) {
    const expected = Buffer.from(`${auth.basicUsername}:${auth.basicPassword}`).toString('base64');
    if (authorization === `Basic ${expected}`) return true;
  }
  const keyHeader = (auth.apiKeyHeader ?? 'X-API-Key').toLowerCase();
  return !!auth.apiKey && headers[keyHeader] === auth.apiKey;
}
