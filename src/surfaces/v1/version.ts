import { A2AError } from '../../model/index.js';

/** What a request without a version asks for: the spec says an empty value means 0.3. */
const IMPLIED_VERSION = '0.3';
const VERSION = /^v?(\d+)(?:\.\d+)*$/i;

/** The `A2A-Version` header, else the `?A2A-Version=` query parameter, else ''. */
export function requestedVersion(request: Request): string {
  const header = request.headers.get('a2a-version')?.trim();
  if (header) return header;
  const query = new URL(request.url).searchParams.get('A2A-Version')?.trim();
  return query ?? '';
}

/** Whether the request asks for A2A 1.x by name (`A2A-Version` or its query parameter), whatever `lenient-version` lets through. */
export const asksForV1 = (request: Request): boolean => checkRequestedVersion(requestedVersion(request), false) === undefined;

/**
 * The 1.0 handlers' version gate, compared on the major version like a2a-sdk's `validate_version`:
 * `1.0`, `1.7` and `1.0.0` pass; `2.0`, `0.3`, garbage and (unless `lenient-version`) nothing fail
 * with -32009 (`lenient`: `lenient-version`).
 */
export function checkV1Version(request: Request, lenient: boolean): A2AError | undefined {
  return checkRequestedVersion(requestedVersion(request), lenient);
}

/** The same gate for a version given by other means (`sentIn`: the gRPC binding's `a2a-version` metadata). */
export function checkRequestedVersion(requested: string, lenient: boolean, sentIn: 'header' | 'metadata' = 'header'): A2AError | undefined {
  if (requested === '') return lenient ? undefined : A2AError.versionNotSupported(IMPLIED_VERSION, sentIn);
  const major = VERSION.exec(requested)?.[1];
  if (major !== undefined && Number(major) === 1) return undefined;
  return A2AError.versionNotSupported(requested.slice(0, 32));
}
