import type { Message } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025Message } from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { partToV025, partToV1 } from './parts.js';

/** 0.2.5 message → 1.0: `kind` stripped, role enum converted; unknown fields are not carried (strict 1.0 parsers reject them). */
export function messageToV1(message: V025Message, profile: MappingProfile): Message {
  return defined({
    messageId: message.messageId,
    role: profile.rolesFromV025[message.role],
    parts: message.parts.map((part) => partToV1(part, profile)),
    contextId: message.contextId,
    taskId: message.taskId,
    referenceTaskIds: message.referenceTaskIds,
    extensions: message.extensions,
    metadata: message.metadata,
  });
}

/** 1.0 message → 0.2.5: `kind: 'message'` added, role enum converted. */
export function messageToV025(message: Message, profile: MappingProfile): V025Message {
  return defined({
    kind: 'message' as const,
    messageId: message.messageId,
    role: profile.rolesToV025[message.role],
    parts: message.parts.map((part) => partToV025(part, profile)),
    contextId: message.contextId,
    taskId: message.taskId,
    referenceTaskIds: message.referenceTaskIds,
    extensions: message.extensions,
    metadata: message.metadata,
  });
}
