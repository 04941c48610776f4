import type { MappingProfile } from '../../mappings/index.js';
import type { ServedElsewhere } from '../shared/jsonrpc-endpoint.js';
import { underBase } from './deps.js';
import { v025ErrorAnswer } from './errors.js';

/**
 * The facade's methods, as the 1.0 endpoint (`POST /`) tells a caller who posts one there while the facade is under
 * a base path of its own (`bailian.base-path`): in 0.2.5's error form, as the facade answers (message/stream: one
 * SSE frame, which the 0.2.5 client reads where it refuses a JSON body). Only the methods the profile maps: a
 * `namespace/verb` name the facade does not know either is no 0.2.5 method.
 */
export function facadeMethodsElsewhere(basePath: string, profile: MappingProfile): ServedElsewhere {
  return {
    handles: (method) => Object.hasOwn(profile.methodsFromV025, method),
    servedAs:
      `an A2A 0.2.5 method, served by the Bailian facade at POST ${basePath} ` +
      `(message/stream also at POST ${underBase(basePath, '/stream')}), not by this A2A 1.0 endpoint`,
    refuse: ({ id, method }, error) => v025ErrorAnswer(id, method, error, profile),
  };
}
