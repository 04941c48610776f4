import { Redis } from 'ioredis';

type DefineCommand = (this: Redis, name: string, definition: { lua: string; numberOfKeys?: number }) => void;

/**
 * What `connect` returns, its Redis clients' Lua command `name` (redisScript's name) failing its first call, as
 * a Redis blip does (a connection reset, a command timed out): that call never reaches Redis, the later ones do.
 * `failed` resolves once it has failed. Only clients whose commands `connect` defines, before it returns.
 */
export function failingOnce<T>(name: string, connect: () => T): { connected: T; failed: Promise<void> } {
  const prototype = Redis.prototype as unknown as { defineCommand: DefineCommand };
  const own = Object.hasOwn(prototype, 'defineCommand');
  const define = prototype.defineCommand;
  let failedNow!: () => void;
  const failed = new Promise<void>((resolve) => (failedNow = resolve));
  let failures = 0;
  prototype.defineCommand = function (this: Redis, commandName, definition) {
    define.call(this, commandName, definition);
    if (commandName !== name) return;
    const commands = this as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const command = commands[commandName]!;
    commands[commandName] = (...args) => {
      if (failures++ > 0) return command.apply(this, args);
      failedNow();
      return Promise.reject(new Error('Connection is closed.'));
    };
  };
  try {
    return { connected: connect(), failed };
  } finally {
    if (own) prototype.defineCommand = define;
    else delete (prototype as Partial<typeof prototype>).defineCommand;
  }
}
