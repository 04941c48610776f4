import { A2AError } from '../../model/index.js';

/** The media types an A2A 1.0 request body may declare (spec: `application/json`; 1.0.1 adds `application/a2a+json`). */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/a2a+json']);

/** Whether the request declares a JSON body; parameters such as `charset` do not matter. */
export function declaresJson(headers: Headers): boolean {
  const value = headers.get('content-type');
  if (value === null) return false;
  const mediaType = value.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return JSON_MEDIA_TYPES.has(mediaType);
}

/** -32005 for a body that does not declare itself JSON (missing or other Content-Type). */
export function contentTypeNotSupported(headers: Headers): A2AError {
  const declared = headers.get('content-type');
  const what = declared === null ? 'a missing Content-Type' : `Content-Type '${declared.slice(0, 100)}'`;
  return A2AError.contentTypeNotSupported(`Content type not supported: ${what}; send application/json or application/a2a+json`);
}
