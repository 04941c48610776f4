/**
 * Task ids a caller chose itself. A 0.2.5 client may open a task with an id it made up; the upstream
 * gives the task its own id, and the gateway keeps the caller's as an alias of it. Aliases live in one
 * namespace for every caller: an id claimed by one principal is never another's.
 */
export interface TaskAlias {
  owner: string;
  /** The upstream's task id, once the task exists upstream. */
  upstream?: string;
}

export interface TaskAliases {
  /** The alias, whoever owns it. */
  lookup(clientId: string): Promise<TaskAlias | undefined>;
  /** Claims a free id for `owner`; false when someone already holds it (an owner may claim its own pending id again). */
  claim(clientId: string, owner: string): Promise<boolean>;
  /** The task now exists upstream as `upstreamId`. */
  bind(clientId: string, owner: string, upstreamId: string): Promise<void>;
  /** The caller's id of an upstream task, if it has one. */
  clientIdOf(upstreamId: string, owner: string): Promise<string | undefined>;
  close(): Promise<void>;
}
