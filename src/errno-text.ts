/**
 * An fs error's errno and Node's words for it (`ENOTDIR: not a directory`), without the call and path
 * Node appends: the message around it names the file, as the operator set it. Another error: its message.
 */
export function errnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (!code) return message.split('\n')[0] ?? 'error';
  return message.startsWith(`${code}: `) ? message.slice(0, message.indexOf(',') > 0 ? message.indexOf(',') : undefined) : code;
}
