/**
 * Which files a text-only caller is shown as text (their media type, else their name's ending), and the fenced block
 * that shows one: a Bailian user reads a Terraform template in the reply, not a description of it.
 */

const TEXT_MEDIA_TYPES = new Set([
  'application/json',
  'application/yaml',
  'application/x-yaml',
  'application/xml',
  'application/hcl',
  'application/x-hcl',
  'application/x-terraform',
  'application/x-sh',
  'application/x-shellscript',
  'application/javascript',
  'application/toml',
  'application/sql',
]);

/** File name endings shown as text when the media type says nothing useful, with their fence language. */
const TEXT_EXTENSIONS: Record<string, string> = {
  tf: 'hcl',
  tfvars: 'hcl',
  hcl: 'hcl',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  xml: 'xml',
  md: 'markdown',
  sh: 'bash',
  bash: 'bash',
  txt: '',
  toml: 'toml',
  sql: 'sql',
  py: 'python',
  js: 'javascript',
  ts: 'typescript',
};

const extensionOf = (filename: string | undefined): string => /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase() ?? '';
const baseMediaType = (mediaType: string | undefined): string => (mediaType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** Whether a file of this media type and name is text a person can read in a chat. */
export function isTextLike(mediaType: string | undefined, filename: string | undefined): boolean {
  const type = baseMediaType(mediaType);
  if (type.startsWith('text/') || TEXT_MEDIA_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) return true;
  if (type !== '' && type !== 'application/octet-stream') return false;
  return Object.hasOwn(TEXT_EXTENSIONS, extensionOf(filename));
}

/** The language a file's fenced block is marked with: by its name's ending, else its media type; none when neither tells. */
export function fenceLanguage(mediaType: string | undefined, filename: string | undefined): string {
  const byName = TEXT_EXTENSIONS[extensionOf(filename)];
  if (byName !== undefined) return byName;
  const type = baseMediaType(mediaType);
  if (type.includes('json')) return 'json';
  if (type.includes('yaml')) return 'yaml';
  if (type.includes('xml')) return 'xml';
  if (type.includes('markdown')) return 'markdown';
  if (type.includes('hcl') || type.includes('terraform')) return 'hcl';
  if (type.includes('sh')) return 'bash';
  return '';
}

/** The fence of a block its own content cannot close: longer than any backtick run inside, three at least. */
export function fenceFor(content: string): string {
  // A loop, not Math.max(...runs): a markdown file may hold more runs than a call takes arguments.
  let longestRun = 0;
  for (const run of content.matchAll(/`+/g)) longestRun = Math.max(longestRun, run[0].length);
  return '`'.repeat(Math.max(3, longestRun + 1));
}

/** A fenced block that its own content cannot close. */
export function fenced(content: string, language: string): string {
  const fence = fenceFor(content);
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return `${fence}${language}\n${body}${fence}`;
}
