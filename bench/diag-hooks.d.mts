/** Types of diag-hooks.mjs, for the TypeScript children and the harness. */
export declare function installDiagnostics(): void;

export interface GcKind {
  count: number;
  totalMs: number;
  maxMs: number;
}

export interface DiagReport {
  type: 'diag';
  eventLoopDelayMs: { mean: number; p50: number; p90: number; p99: number; max: number; count: number };
  gc: Record<string, GcKind>;
  cpuUs: { user: number; system: number };
}
