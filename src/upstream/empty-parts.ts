import { isRecord } from '../model/json.js';
import { withFields } from '../model/with-fields.js';

/**
 * Messages and artifacts without parts, as an agent answered them, made into what A2A 1.0 can carry.
 *
 * The A2A 0.2.5 and 0.3 JSON schemas type `parts` as a plain array (no `minItems`), so an agent of those
 * versions may send a status message, a history message or an artifact with `parts: []` (a2a-js 0.2.5
 * keeps them as published; a2a-python builds them from empty lists). The 1.0 proto marks `parts`
 * REQUIRED, and its ProtoJSON leaves an empty list out altogether, so a 1.0 agent doing so sends a
 * message with no `parts` key. Either way the object holds no content, and failing the whole turn for it
 * threw away everything else the agent said. What the gateway makes of each (docs/version-mapping.md):
 *
 * - a status's message without parts is left out: the status (its state, its timestamp) stays;
 * - an artifact or a history message without parts is left out of its task;
 * - an artifact-update whose artifact has no parts is left out of the stream: it adds nothing (one that
 *   closes its artifact, `lastChunk`, keeps its place with one empty text part);
 * - a message that is a whole answer (a SendMessage result, a stream's Message) keeps its place with one
 *   empty text part, since an answer cannot be left out.
 *
 * Only called when an answer failed its check, so a well-formed answer costs nothing more. Copy on
 * write: an object that needs nothing is returned as it came, so the caller can tell nothing changed.
 */

type Shape = Record<string, unknown>;

/** Where one wire format keeps what the repair looks at. */
export interface PartsLayout {
  /** The keys a message's or artifact's part list may be under. */
  readonly partLists: readonly string[];
  /** The keys a status's message may be under. */
  readonly statusMessages: readonly string[];
  /** The part that stands in for the content of a whole answer without any. */
  readonly emptyText: Readonly<Shape>;
}

export const V1_PARTS: PartsLayout = { partLists: ['parts'], statusMessages: ['message'], emptyText: { text: '' } };
export const V025_PARTS: PartsLayout = { partLists: ['parts'], statusMessages: ['message'], emptyText: { kind: 'text', text: '' } };
/** 0.3 HTTP+JSON: parts under `content` (0.3.0) or `parts`, a status message under `message` or `update` (src/protocol/v03/rest.ts). */
export const V03_REST_PARTS: PartsLayout = { partLists: ['parts', 'content'], statusMessages: ['message', 'update'], emptyText: { text: '' } };

/** An object whose part lists are all absent or empty. A list that is no list is left for the schema to name. */
function hasNoParts(value: unknown, layout: PartsLayout): boolean {
  if (!isRecord(value)) return false;
  for (const key of layout.partLists) {
    const list = value[key];
    if (list !== undefined && !(Array.isArray(list) && list.length === 0)) return false;
  }
  return true;
}

function without(value: Shape, key: string): Shape {
  const copy = withFields(value, {});
  delete copy[key];
  return copy;
}

function statusRepaired(status: unknown, layout: PartsLayout): unknown {
  if (!isRecord(status)) return status;
  let repaired = status;
  for (const key of layout.statusMessages) if (hasNoParts(repaired[key], layout)) repaired = without(repaired, key);
  return repaired;
}

/** The list without its items that have no parts; the list itself when none lacks them. */
function withPartsOnly(list: unknown, layout: PartsLayout): unknown {
  if (!Array.isArray(list) || !list.some((item) => hasNoParts(item, layout))) return list;
  return list.filter((item) => !hasNoParts(item, layout));
}

function taskRepaired(task: unknown, layout: PartsLayout): unknown {
  if (!isRecord(task)) return task;
  const changes: Shape = {};
  const status = statusRepaired(task.status, layout);
  if (status !== task.status) changes.status = status;
  for (const key of ['artifacts', 'history']) {
    const kept = withPartsOnly(task[key], layout);
    if (kept !== task[key]) changes[key] = kept;
  }
  return Object.keys(changes).length === 0 ? task : withFields(task, changes);
}

/** A whole answer that is a message (or an artifact that closes its stream): one empty text part where it has none. */
function answerRepaired(message: unknown, layout: PartsLayout): unknown {
  if (!hasNoParts(message, layout)) return message;
  const copy = withFields(message as Shape, {});
  for (const key of layout.partLists) delete copy[key];
  copy[layout.partLists[0] as string] = [withFields(layout.emptyText, {})];
  return copy;
}

/**
 * An artifact-update without parts: it adds nothing, so it is left out, unless it closes its artifact
 * (`lastChunk`, a common 0.2.5 way to end a chunked artifact), which a reader must still be told: then
 * with one empty text part.
 */
function closingUpdate(update: Shape, layout: PartsLayout): Shape | undefined {
  if (update.lastChunk !== true) return undefined;
  return withFields(update, { artifact: answerRepaired(update.artifact, layout) });
}

function updateRepaired(update: unknown, layout: PartsLayout): unknown {
  if (!isRecord(update)) return update;
  const status = statusRepaired(update.status, layout);
  return status === update.status ? update : withFields(update, { status });
}

/**
 * A 1.0 (or 0.3 HTTP+JSON) answer or stream event, wrapped as `{task}`, `{message}` (0.3 also `{msg}`),
 * `{statusUpdate}` or `{artifactUpdate}`, repaired; undefined for an artifact-update that carries no
 * parts and does not close its artifact, which is left out of its stream.
 */
export function wrappedRepaired(value: unknown, layout: PartsLayout = V1_PARTS): unknown {
  if (!isRecord(value)) return value;
  const update = value.artifactUpdate;
  if (isRecord(update) && hasNoParts(update.artifact, layout)) {
    const closing = closingUpdate(update, layout);
    return closing && withFields(value, { artifactUpdate: closing });
  }
  const changes: Shape = {};
  const repair = (key: string, repaired: (inner: unknown) => unknown): void => {
    if (value[key] === undefined) return;
    const inner = repaired(value[key]);
    if (inner !== value[key]) changes[key] = inner;
  };
  repair('task', (task) => taskRepaired(task, layout));
  repair('message', (message) => answerRepaired(message, layout));
  repair('msg', (message) => answerRepaired(message, layout));
  repair('statusUpdate', (statusUpdate) => updateRepaired(statusUpdate, layout));
  return Object.keys(changes).length === 0 ? value : withFields(value, changes);
}

/** A bare Task (GetTask, CancelTask) repaired. */
export const taskAnswerRepaired = (value: unknown, layout: PartsLayout = V1_PARTS): unknown => taskRepaired(value, layout);

/** A 1.0 ListTasks answer: each task repaired. */
export function taskListRepaired(value: unknown): unknown {
  if (!isRecord(value) || !Array.isArray(value.tasks)) return value;
  const tasks = value.tasks.map((task) => taskRepaired(task, V1_PARTS));
  return tasks.every((task, at) => task === (value.tasks as unknown[])[at]) ? value : withFields(value, { tasks });
}

/**
 * A 0.2.5 (or 0.3 JSON-RPC) result or stream event, a bare object told apart by `kind`, repaired;
 * undefined for an artifact-update that carries no parts.
 */
export function v025Repaired(value: unknown): unknown {
  if (!isRecord(value)) return value;
  switch (value.kind) {
    case 'task':
      return taskRepaired(value, V025_PARTS);
    case 'message':
      return answerRepaired(value, V025_PARTS);
    case 'status-update':
      return updateRepaired(value, V025_PARTS);
    case 'artifact-update':
      return hasNoParts(value.artifact, V025_PARTS) ? closingUpdate(value, V025_PARTS) : value;
    default:
      return value;
  }
}

/**
 * A stream event as `parse` reads it, or when that fails, the event repaired and read again: the
 * repaired event's own error if it still fails (it names what else is wrong), the first error when the
 * repair changed nothing. Undefined when the repair leaves the event out. For the versions whose events
 * have no hand-written check: the repair still runs only on an event that failed.
 */
export function eventParsedOrRepaired<T>(value: unknown, parse: (value: unknown) => T, repair: (value: unknown) => unknown): T | undefined {
  try {
    return parse(value);
  } catch (error) {
    const repaired = repair(value);
    if (repaired === value) throw error;
    return repaired === undefined ? undefined : parse(repaired);
  }
}

/** The same for a unary answer, which cannot be left out: a repair that would leave it out changes nothing. */
export function answerParsedOrRepaired<T>(value: unknown, parse: (value: unknown) => T, repair: (value: unknown) => unknown): T {
  try {
    return parse(value);
  } catch (error) {
    const repaired = repair(value);
    if (repaired === value || repaired === undefined) throw error;
    return parse(repaired);
  }
}
