import { withFields } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import type { FolderInText } from './workspace-paths.js';

/** Deeper than iac-code nests a tool's result (at most 32 levels): left as it is. */
const MAX_DEPTH = 40;

/**
 * What iac-code says in `metadata.iac_code` with the conversation's folder made relative (workspace-paths.ts):
 * a tool's result and input (`write_file`'s path), a permission prompt's question and the tool input it
 * asks about, an MCP warning. A 1.0 caller reads that metadata as it comes, and the facade shows the prompt;
 * neither is told the gateway's folder layout. Copy on write: the same object when nothing names the folder.
 */
export function metadataRelative(metadata: JsonObject | undefined, folder: FolderInText): JsonObject | undefined {
  const iacCode = metadata?.iac_code;
  if (!isRecord(iacCode)) return metadata;
  const relative = deepRelative(iacCode, folder, 0);
  return relative === iacCode ? metadata : withFields(metadata as JsonObject, { iac_code: relative });
}

function deepRelative(value: unknown, folder: FolderInText, depth: number): unknown {
  if (typeof value === 'string') return folder.relative(value);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => deepRelative(item, folder, depth + 1));
    return items.some((item, at) => item !== value[at]) ? items : value;
  }
  let changed: Record<string, unknown> | undefined;
  for (const [key, inner] of Object.entries(value)) {
    const relative = deepRelative(inner, folder, depth + 1);
    if (relative === inner) continue;
    changed ??= withFields(value as Record<string, unknown>, {});
    changed[key] = relative;
  }
  return changed ?? value;
}
