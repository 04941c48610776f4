/** The fake iac-code's ListTasks (docs/iac-code.md): newest first, paged, artifacts only when asked for. */
import { withHistoryLength, type Json } from './fake-iac-code-data.js';
import { invalidParams } from './fake-iac-code-rpc.js';

export function listedTasks(stored: Iterable<Json>, params: Json): Json {
  const pageSize = (params.pageSize as number | undefined) ?? 50;
  if (pageSize < 1) throw invalidParams('minimum page size is 1');
  if (pageSize > 100) throw invalidParams('maximum page size is 100');
  const stamp = (task: Json): string => ((task.status as Json).timestamp as string | undefined) ?? '';
  const matching = [...stored]
    .filter((task) => params.contextId === undefined || task.contextId === params.contextId)
    .filter((task) => params.status === undefined || (task.status as Json).state === params.status)
    .sort((a, b) => stamp(b).localeCompare(stamp(a)) || String(b.id).localeCompare(String(a.id)));
  const tasks = matching.slice(0, pageSize).map((task) => {
    const copy = withHistoryLength(task, params.historyLength);
    if (params.includeArtifacts !== true) copy.artifacts = [];
    return copy;
  });
  return { tasks, pageSize, totalSize: matching.length, nextPageToken: '' };
}
