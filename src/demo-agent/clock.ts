let lastMicros = 0;

/**
 * A status timestamp like iac-code's (`2026-11-29T11:25:08.861112Z`, microseconds), strictly
 * increasing within the process so ListTasks' newest-first order follows the order of events.
 */
export function statusTimestamp(): string {
  lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
  const iso = new Date(Math.floor(lastMicros / 1000)).toISOString();
  return `${iso.slice(0, -1)}${String(lastMicros % 1000).padStart(3, '0')}Z`;
}
