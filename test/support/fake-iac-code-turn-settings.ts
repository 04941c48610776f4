/**
 * What a turn's metadata asks of the fake iac-code (read as iac-code reads it, docs/iac-code.md): the
 * folder it works in, the language it writes in, whether it runs in pipeline mode.
 */
import type { Json } from './fake-iac-code-data.js';

/**
 * The metadata iac-code reads a turn's settings (`iac_code.cwd`, ...) from: the request's own whenever it
 * has any, else the message's (read in iac-code's source; no capture has request-level metadata).
 */
export function turnMetadata(params: Json): Json | undefined {
  const request = params.metadata as Json | undefined;
  return request && Object.keys(request).length > 0 ? request : ((params.message as Json | undefined)?.metadata as Json | undefined);
}

/** The language a turn asks iac-code to write in (`iac_code.preferredLanguage`, `zh-CN` read as `zh`), as iac-code reads it. */
export function preferredLanguage(params: Json): string | undefined {
  const iacCode = turnMetadata(params)?.iac_code as Json | undefined;
  const asked = iacCode?.preferredLanguage ?? iacCode?.preferred_language;
  return typeof asked === 'string' ? asked.trim().toLowerCase().split(/[-_]/)[0] : undefined;
}

/** The server's run mode (`serverMode`, from its card), or the turn's own (`iac_code.run_mode` in the message's metadata, as iac-code reads it). */
export function runsPipeline(params: Json, serverMode: string | undefined): boolean {
  const iacCode = ((params.message as Json).metadata as Json | undefined)?.iac_code as Json | undefined;
  const mode = typeof iacCode?.run_mode === 'string' ? iacCode.run_mode.trim().toLowerCase() : serverMode;
  return mode === 'pipeline';
}

/** The folder a turn without `cwd` works in: the server process's own. */
const SERVER_FOLDER = '/srv/iac-code';
/** iac-code's failure for a turn that names another folder than its context's first (captured). */
export const WRONG_WORKSPACE = 'ValueError: A2A context belongs to a different workspace';

/** iac-code binds a context to the folder of its first turn (`metadata.iac_code.cwd`, else the server's own). */
export class Workspaces {
  private readonly bound = new Map<string, string>();

  /** Whether a turn with this metadata works in its context's folder (binding the context on its first turn). */
  inItsWorkspace(contextId: string, metadata: Json | undefined): boolean {
    const iacCode = metadata?.iac_code as Json | undefined;
    const folder = typeof iacCode?.cwd === 'string' ? iacCode.cwd : SERVER_FOLDER;
    const bound = this.bound.get(contextId) ?? folder;
    this.bound.set(contextId, bound);
    return bound === folder;
  }
}
