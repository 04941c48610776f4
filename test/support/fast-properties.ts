import { setFlagsFromString } from 'node:v8';
import { runInThisContext } from 'node:vm';

// V8's own check, reachable only with natives syntax, which a running process may switch on for code it compiles later.
setFlagsFromString('--allow-natives-syntax');
const fastCheck = runInThisContext('(object) => %HasFastProperties(object)') as (object: object) => boolean;

/**
 * Whether V8 keeps `object` in fast mode (a shared hidden class, fields inline) rather than as a dictionary, which
 * costs hundreds of bytes more per object: what an object made per open stream must not become (docs/performance.md).
 */
export const hasFastProperties = (object: object): boolean => fastCheck(object);
