import { withFields, type SendMessageRequest } from '../../model/index.js';

type Metadata = Record<string, unknown> | undefined;

const hasAny = (metadata: Metadata): metadata is Record<string, unknown> => metadata !== undefined && Object.keys(metadata).length > 0;

/** The metadata iac-code reads a turn's settings (`iac_code.*`) from: the request's own whenever it has any, else the message's (read in its source). */
export const settingsMetadata = (request: SendMessageRequest): Metadata => (hasAny(request.metadata) ? request.metadata : request.message.metadata);

/**
 * The request with `edit` made to the message's metadata and to the request's own when that has any, so
 * that iac-code reads the edit wherever it reads the turn's settings; the same object when `edit` changed
 * nothing (it returns the metadata it was given).
 */
export function withSettingsEdited(request: SendMessageRequest, edit: (metadata: Metadata) => Metadata): SendMessageRequest {
  const { message, metadata } = request;
  const messageMetadata = edit(message.metadata);
  const edited =
    messageMetadata === message.metadata ? request : withFields(request, { message: withFields(message, { metadata: messageMetadata }) });
  if (!hasAny(metadata)) return edited;
  const own = edit(metadata);
  return own === metadata ? edited : withFields(edited, { metadata: own });
}
