import { Session } from 'node:inspector/promises';

/**
 * How many objects that inherit from `prototype` are alive in this process, after a full garbage collection:
 * the inspector's queryObjects (Chrome DevTools' `queryObjects()`), so a test can tell what something keeps.
 */
export async function liveInstances(prototype: object): Promise<number> {
  const session = new Session();
  session.connect();
  const slot = Symbol.for('a2a-bridge-test:live-instances');
  (globalThis as Record<symbol, unknown>)[slot] = prototype;
  try {
    const { result } = await session.post('Runtime.evaluate', { expression: `globalThis[Symbol.for('a2a-bridge-test:live-instances')]` });
    const { objects } = await session.post('Runtime.queryObjects', { prototypeObjectId: result.objectId! });
    const { result: count } = await session.post('Runtime.callFunctionOn', {
      objectId: objects.objectId!,
      functionDeclaration: 'function () { return this.length; }',
      returnByValue: true,
    });
    return count.value as number;
  } finally {
    delete (globalThis as Record<symbol, unknown>)[slot];
    session.disconnect();
  }
}
