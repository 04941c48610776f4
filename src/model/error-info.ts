/**
 * google.rpc.ErrorInfo (AIP-193): why an error happened, as the service named by `domain` says it; a
 * `reason` means something only within its domain. A2A's own errors carry one under `a2a-protocol.org`
 * (ERROR_DOMAIN, errors.ts); an agent may add its own under its domain.
 */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
