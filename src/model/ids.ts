import { z } from 'zod';

/** iac-code's protocol id rule: task, context and push-config ids. */
export const PROTOCOL_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export const PROTOCOL_ID_RULE = 'must be 1-128 characters of letters, digits, _ . : -';

/**
 * Proto3 JSON leaves an empty string out, so an SDK's `taskId: ""` over gRPC (or a JSON-RPC caller that
 * left the id out) arrives as no id at all: told the rule, as HTTP+JSON's empty path segment is, not
 * "expected string, received undefined".
 */
export const ProtocolId = z
  .string({ error: (issue) => (issue.input === undefined ? PROTOCOL_ID_RULE : undefined) })
  .regex(PROTOCOL_ID_PATTERN, PROTOCOL_ID_RULE);

export function isProtocolId(value: unknown): value is string {
  return typeof value === 'string' && PROTOCOL_ID_PATTERN.test(value);
}

/** Tenants follow the id rule; '' (what SDKs send for "no tenant") is the default tenant. */
export const TENANT_PATTERN = /^[A-Za-z0-9_.:-]{0,128}$/;

export const Tenant = z.string().regex(TENANT_PATTERN, 'must be at most 128 characters of letters, digits, _ . : -');
