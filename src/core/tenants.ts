import type { TaskScope } from './task-registry/types.js';

/**
 * Tenants (A2A 1.0 `tenant`, on every request): a task belongs to the tenant it was created under, as an
 * a2a-js 1.x agent keeps it (its stores are bucketed by tenant, then owner; an absent or empty tenant is
 * the default tenant ''). The gateway records the tenant with the task, so what it asks the agent on its
 * own about a task names the task's tenant, and a caller naming another tenant does not find the task.
 */
export const DEFAULT_TENANT = '';

/** The tenant a request (or a task's meta) names: none is the default tenant, as a2a-js reads it. */
export const tenantOf = (named: { tenant?: string | undefined }): string => named.tenant ?? DEFAULT_TENANT;

/**
 * The `tenant` field of a request the gateway sends about a task of `tenant`: none for the default tenant,
 * as a caller without one sends it (the 0.2.5 facade's calls, an HTTP+JSON path without the segment).
 */
export const tenantField = (tenant: string): { tenant?: string } => (tenant === DEFAULT_TENANT ? {} : { tenant });

/** Whether a task recorded in `scope` is reached by a call of `principal` naming `tenant`. */
export const inScope = (scope: TaskScope, principal: string, tenant: string): boolean => scope.owner === principal && scope.tenant === tenant;
