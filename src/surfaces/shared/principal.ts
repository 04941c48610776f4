import { createHmac } from 'node:crypto';

/** The protocol surface a caller came through: each one's tasks are its own, whatever the credential. */
export type PrincipalSurface = 'a2a-1.0' | 'a2a-0.2.5';

/** How the caller proved who it is; `anonymous` when the surface asks for nothing. */
export type PrincipalScheme = 'bearer' | 'basic' | 'api-key' | 'jwt' | 'anonymous';

/**
 * Domain separation for principal digests. Principals are stored next to tasks (in Redis when
 * `store: redis`), so they hold a digest of the credential, never the credential itself.
 */
const DIGEST_LABEL = 'a2a-bridge/principal/v1';

/**
 * The owner scope of a caller: its surface, its scheme and a digest of the credential it presented
 * (Basic: user and password). Two different credentials, or one credential used on two surfaces,
 * can never name the same principal; the header a key arrived in plays no part.
 */
export function principalOf(surface: PrincipalSurface, scheme: PrincipalScheme, credential = ''): string {
  if (scheme === 'anonymous') return `${surface}:anonymous`;
  const input = `${surface}\u0000${scheme}\u0000${credential}`;
  let principal = known.get(input);
  if (principal === undefined) {
    principal = digested(surface, scheme, input);
    known.set(input, principal);
  }
  return principal;
}

/**
 * The principal of a caller a token vouches for (`jwt`: its issuer and subject), made afresh each
 * time: subjects are as many as the provider issues, so they are not remembered as configured
 * credentials are. The issuer is the configured one, and the subject comes last, so no subject can
 * shift where one part ends.
 */
export function tokenSubjectPrincipal(surface: PrincipalSurface, issuer: string, subject: string): string {
  return digested(surface, 'jwt', `${surface}\u0000jwt\u0000${issuer}\u0000${subject}`);
}

/**
 * Whether a token's subject can name a caller: not empty, and without NUL, which separates the parts of
 * a principal's input. A client acting for itself is `\u0000client\u0000<client_id>`
 * (introspected-callers.ts), so a subject with NUL in it could otherwise pass for a client, where a
 * provider lets users choose the claim (`subject-claim: preferred_username`, say).
 */
export const isUsableSubject = (subject: unknown): subject is string => typeof subject === 'string' && subject !== '' && !subject.includes('\u0000');

function digested(surface: PrincipalSurface, scheme: PrincipalScheme, input: string): string {
  const digest = createHmac('sha256', DIGEST_LABEL).update(input).digest('base64url');
  return `${surface}:${scheme}:${digest.slice(0, 32)}`;
}

/**
 * Digests already computed. Only configured credentials get here (a presented one must have matched
 * first), so the map stays as small as the configuration.
 */
const known = new Map<string, string>();
