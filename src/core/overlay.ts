import type { AgentPort } from './agent-port.js';

/**
 * A decorator's port: `methods` over `inner`. Every method it does not name (and whatever else the
 * inner port carries, like the gateway's `settled` and `events`) stays the inner port's own.
 */
export function overlay<P extends AgentPort, M extends Partial<AgentPort>>(inner: P, methods: M): P & M {
  return Object.assign(Object.create(inner) as P, methods);
}
