import { isRecord, type JsonObject } from '../../model/json.js';
import { iacCodeOf } from './events.js';

/**
 * iac-code's pipeline mode (docs/iac-code.md, "Pipeline mode"): a turn's text, steps and questions come
 * as envelopes in the metadata of status updates that carry no message, one in `iac_code.pipeline` or
 * several, in order, in `iac_code.pipelineBatch.events`.
 */
export interface PipelineEnvelope {
  eventType: string;
  data: JsonObject;
  /** Where in the run it happened: `{id, runId, index, total, ...}`, each when the scope has it. */
  step: JsonObject | undefined;
  candidate: JsonObject | undefined;
}

const EMPTY: JsonObject = {};
const record = (value: unknown): JsonObject | undefined => (isRecord(value) ? value : undefined);

function envelope(value: unknown): PipelineEnvelope[] {
  const raw = record(value);
  if (!raw || typeof raw.eventType !== 'string') return [];
  return [
    {
      eventType: raw.eventType,
      data: record(raw.data) ?? EMPTY,
      step: record(raw.step),
      candidate: record(raw.candidate),
    },
  ];
}

/** The pipeline envelopes an update carries, in order; undefined when it is no pipeline update. */
export function pipelineEnvelopes(metadata: JsonObject | undefined): PipelineEnvelope[] | undefined {
  const iacCode = iacCodeOf(metadata);
  if (!iacCode) return undefined;
  const batch = record(iacCode.pipelineBatch);
  if (batch) return Array.isArray(batch.events) ? batch.events.flatMap(envelope) : [];
  return iacCode.pipeline === undefined ? undefined : envelope(iacCode.pipeline);
}
