import { z } from 'zod';
import { IntrospectionAuthConfig } from './introspection-schema.js';
import { JwtAuthConfig } from './jwt-schema.js';
import { KeyList, TokenList } from './named-secrets.js';

const CredentialFields = {
  token: z.string().min(1).optional(),
  'basic-username': z.string().min(1).optional(),
  'basic-password': z.string().min(1).optional(),
  'api-key': z.string().min(1).optional(),
  'api-key-header': z.string().min(1).default('X-API-Key'),
};

/** Credentials: one of each scheme, for the gateway calling upstream (`upstream.auth`). */
export const Credentials = z.strictObject(CredentialFields).prefault({});
export type Credentials = z.infer<typeof Credentials>;

/**
 * What callers of the gateway may present (`auth`): one of each scheme, and further bearer tokens and
 * API keys, each a principal of its own (one per client; two at once while a key is rotated). A
 * listed one may carry a client name for logs and metrics (named-secrets.ts).
 */
export const CallerCredentials = z
  .strictObject({
    tokens: TokenList,
    'api-keys': KeyList,
    /** Bearer JSON Web Tokens from the operator's identity provider (jwt-schema.ts). */
    jwt: JwtAuthConfig.optional(),
    /** Opaque OAuth 2.0 access tokens, asked about at the provider's introspection endpoint (introspection-schema.ts). */
    introspection: IntrospectionAuthConfig.optional(),
    ...CredentialFields,
  })
  .prefault({});
export type CallerCredentials = z.infer<typeof CallerCredentials>;

/** Whether any caller credential is configured (Basic only with both halves, as iac-code has it). */
export function callerAuthConfigured(auth: CallerCredentials): boolean {
  return Boolean(
    auth.token ||
    (auth['basic-username'] && auth['basic-password']) ||
    auth['api-key'] ||
    auth.tokens.length > 0 ||
    auth['api-keys'].length > 0 ||
    auth.jwt ||
    auth.introspection,
  );
}
