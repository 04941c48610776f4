import { z } from 'zod';

/** iac-code's protocol id rule: task, context and push-config ids. */
export const PROTOCOL_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

export const ProtocolId = z.string().regex(PROTOCOL_ID_PATTERN, 'must be 1-128 characters of letters, digits, _ . : -');

export function isProtocolId(value: unknown): value is string {
  return typeof value === 'string' && PROTOCOL_ID_PATTERN.test(value);
}

/** Tenants follow the id rule; '' (what SDKs send for "no tenant") is the default tenant. */
export const TENANT_PATTERN = /^[A-Za-z0-9_.:-]{0,128}$/;

export const Tenant = z.string().regex(TENANT_PATTERN, 'must be at most 128 characters of letters, digits, _ . : -');
