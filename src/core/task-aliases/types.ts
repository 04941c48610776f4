/**
 * Task ids a caller chose itself. A 0.2.5 client may open a task with an id it made up; the upstream
 * gives the task its own id, and the gateway keeps the caller's as an alias of it. Each owner (principal)
 * has ids of its own: one caller's id is never looked up, claimed or bound by another, so nobody learns
 * which ids another uses.
 */
export interface TaskAlias {
  /** The upstream's task id, once the task exists upstream. */
  upstream?: string;
}

export interface TaskAliases {
  /** `owner`'s alias of `clientId`, if it has one. */
  lookup(clientId: string, owner: string): Promise<TaskAlias | undefined>;
  /** Claims `clientId` for `owner`; false when it is already bound (a pending id may be claimed again). */
  claim(clientId: string, owner: string): Promise<boolean>;
  /** The task now exists upstream as `upstreamId`. */
  bind(clientId: string, owner: string, upstreamId: string): Promise<void>;
  /** The caller's id of an upstream task, if it has one. */
  clientIdOf(upstreamId: string, owner: string): Promise<string | undefined>;
  close(): Promise<void>;
}
