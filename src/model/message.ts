import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { JsonObject, Part } from './parts.js';
import { ProtocolId } from './ids.js';

export const Role = z.enum(['ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof Role>;

const NO_PARTS = 'parts must contain at least one element';

export const Message = z.looseObject({
  messageId: z.string().min(1, 'messageId is required'),
  role: Role,
  // A client's empty list arrives left out (ProtoJSON omits empty repeated fields): named as what it was.
  parts: z.array(Part, { error: (issue) => (issue.input === undefined ? NO_PARTS : undefined) }).min(1, NO_PARTS),
  contextId: ProtocolId.optional(),
  taskId: ProtocolId.optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: JsonObject.optional(),
});
export type Message = z.infer<typeof Message>;

/** The same message said again: one id and the same parts (a task's status message is also its history's last). */
export const sameMessage = (a: Message | undefined, b: Message | undefined): boolean =>
  a !== undefined && b !== undefined && a.messageId === b.messageId && isDeepStrictEqual(a.parts, b.parts);
