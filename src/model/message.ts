import { z } from 'zod';
import { JsonObject, Part } from './parts.js';
import { ProtocolId } from './ids.js';

export const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof Role>;

export const Message = z.looseObject({
  messageId: z.string().min(1, 'messageId is required'),
  role: Role,
  parts: z.array(Part).min(1, 'parts must contain at least one element'),
  contextId: ProtocolId.optional(),
  taskId: ProtocolId.optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: JsonObject.optional(),
});
export type Message = z.infer<typeof Message>;
