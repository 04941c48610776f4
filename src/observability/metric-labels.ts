import { V025_METHODS } from '../protocol/v025/enums.js';
import { isV1Method } from '../surfaces/shared/operations.js';
import { TASK_STATES, type TaskState } from '../model/index.js';

/**
 * The values a metric label may take, each from a closed set: a value outside it becomes `other`, so
 * nothing a caller chose (a made-up method, a surface) can add series.
 */
const SURFACES = new Set(['jsonrpc', 'rest', 'grpc', 'v025', 'card', 'health']);
const V025 = new Set<string>(V025_METHODS);

/** A surface label: one of the known surfaces, else `other`. */
export const surfaceLabel = (surface: string | undefined): string => (surface && SURFACES.has(surface) ? surface : 'other');
/** A method label: a 1.0 or 0.2.5 method name, else `other` (a caller's made-up method must not become a series). */
export const methodLabel = (method: string | undefined): string =>
  method && (isV1Method(method) || V025.has(method)) ? method : method ? 'other' : '';
/** An A2A/JSON-RPC error code label; anything outside the JSON-RPC range is `other`. */
export const errorCodeLabel = (code: number | undefined): string =>
  code === undefined ? '' : Number.isInteger(code) && code >= -32768 && code <= -32000 ? String(code) : 'other';
/** `TASK_STATE_WORKING` → `working`. */
export const stateLabel = (state: TaskState): string => state.replace(/^TASK_STATE_/, '').toLowerCase();
const STATE_LABELS: ReadonlySet<string> = new Set(TASK_STATES.map(stateLabel));
/** A 1.0 state's label, or a 0.2.5 state's (`input-required` → `input_required`, `unknown` → `unspecified`); else `other`. */
export const anyStateLabel = (state: string): string => {
  const label = state === 'unknown' ? 'unspecified' : stateLabel(state as TaskState).replace(/-/g, '_');
  return STATE_LABELS.has(label) ? label : 'other';
};
