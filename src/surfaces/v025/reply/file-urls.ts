import { withFields, type Part } from '../../../model/index.js';
import { ACCESS_KEY_PAIR } from '../../../url-credentials.js';
import { codeSpan } from './shown-names.js';

/**
 * A file an agent sent as a URL, as a text-only caller can use it (render-parts.ts renders it). Nothing
 * here fetches anything. What is shown is a place the user can reach with their own browser or cloud
 * account; never the agent's own disk (`file://`: the scrubbing rules hide local paths, docs/security.md),
 * a scheme only its agent resolves (`iac-code-artifact://`), nor a credential written into the URL: its user
 * info, also a secret written raw with a `/` in it, and a bucket location's query. A web link's signed query
 * (a presigned link's `Signature=`, its security token) stays: it is what opens the file, as it always was.
 */

/** Web links: a Markdown reader autolinks them, so they are shown bare, percent-encoded where a link would stop. */
const WEB_SCHEMES = new Set(['http', 'https', 'ftp']);

/**
 * Object storage a user opens with their own cloud account (Alibaba Cloud OSS, S3 and Hadoop's names for
 * it, Google Cloud Storage, Tencent COS, Huawei OBS, Azure's): a bucket and a key to copy into a console or
 * a CLI. Not a cluster's or a host's file system (hdfs, nfs, smb): those name the agent's infrastructure.
 */
const BUCKET_SCHEMES = new Set(['oss', 's3', 's3a', 's3n', 'gs', 'cos', 'obs', 'az', 'abfs', 'abfss', 'wasb', 'wasbs']);

/**
 * Azure's schemes name a container as `container@account…` (`abfss://reports@mystorage.dfs.core.windows.net/…`,
 * adlfs's `az://` too): their own syntax, not user info, so it is kept unless it holds a `:` (a credential).
 */
const CONTAINER_SCHEMES = new Set(['az', 'abfs', 'abfss', 'wasb', 'wasbs']);

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
/** A host and perhaps its port (`example.com`, `example.com:8443`, `[::1]:8080`); a bucket has no port. */
const HOST_AND_PORT = /^(?:\[[^\]]*\]|[^:[\]]*)(?::\d*)?$/;

/** Where the first match of `pattern` in `text` is, else its end. */
const endAt = (text: string, pattern: RegExp): number => {
  const at = text.search(pattern);
  return at < 0 ? text.length : at;
};

/** A hierarchical URL as shown: its scheme, its authority without a credential, and the rest (path, query, fragment). */
interface Location {
  scheme: string;
  authority: string;
  rest: string;
}

/**
 * `url` cut into its scheme, its authority without a credential and the rest; undefined when it is no
 * hierarchical URL, or when where its credential ends cannot be told. A secret written raw may hold a `/`
 * (about half of AWS secret keys do: `s3a://ID:wJal/K7…@bucket/…`), which would end the authority early and
 * show the rest of the secret as a path: an authority whose host is no host (a `:` in a bucket's, one
 * before no port number in a web link's) holds such a secret, whose user info runs to the one `@` before the
 * query; with more than one there (`…:wJal/K7@reports/users/bob@x.com/…`) which ends it cannot be told, and it
 * is not shown. A web link's port followed by a path with an `@` in it cannot be told from a password that begins
 * with digits and a `/` (`https://ID:1234/K7@host/`), and a secret with a `?` or `#` in it ends before any
 * `@`: neither is shown. A bucket's query and fragment are left out: a CLI location has neither, and credentials
 * go there (`?security-token=…&access_key_secret=…`, `#access_key_secret=…`). Nor is any location that holds an access key id and its
 * secret after a `:`, wherever it stands.
 */
function located(url: string): Location | undefined {
  const scheme = SCHEME.exec(url)?.[1];
  if (scheme === undefined) return undefined;
  const kind = scheme.toLowerCase();
  const bucket = BUCKET_SCHEMES.has(kind);
  let after = url.slice(scheme.length + 3);
  // The authority and the path, before the query and the fragment.
  const beforeQuery = after.slice(0, endAt(after, /[?#]/));
  let authority = after.slice(0, endAt(after, /[/?#]/));
  const isHost = (host: string): boolean => (bucket ? !host.includes(':') : HOST_AND_PORT.test(host));
  if (!isHost(authority.slice(authority.lastIndexOf('@') + 1))) {
    // A secret cut by its own `/`: everything up to the `@` before the query is user info. With more than one
    // `@` left (`…:wJal/K7@reports/users/bob@x.com/…`) which one ends it is not known: the last would show
    // another bucket or host (`s3a://x.com/…`).
    const at = beforeQuery.lastIndexOf('@');
    if (at < 0 || beforeQuery.indexOf('@') !== at) return undefined;
    after = after.slice(at + 1);
    authority = after.slice(0, endAt(after, /[/?#]/));
    if (authority.includes('@') || !isHost(authority)) return undefined;
  } else if (!authority.includes('@') && authority.includes(':') && beforeQuery.includes('@')) {
    return undefined;
  }
  const at = authority.lastIndexOf('@');
  const rest = after.slice(authority.length, bucket ? endAt(after, /[?#]/) : after.length);
  if (at >= 0 && !(CONTAINER_SCHEMES.has(kind) && !authority.slice(0, at).includes(':'))) authority = authority.slice(at + 1);
  return ACCESS_KEY_PAIR.test(authority + rest) ? undefined : { scheme, authority, rest };
}

const percentEncoded = (char: string): string =>
  [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Characters no text may show raw: controls (a line break would cut the reply's line), invisible format marks (a bidi override). */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/**
 * Where a bare link stops in a Markdown reader or an autolinker: white space (also the ideographic space),
 * `<` and `>`, the characters RFC 3986 never allows raw (`"`, `\`, `^`, `` ` ``, `{`, `|`, `}`, a `%` that
 * starts no escape), brackets outside the host (a Markdown link's), and full-width punctuation, which ends
 * a link in Chinese text.
 */
const STOPS_LINK = /[\s"%<>\\^`{|}[\]\p{Z}\p{C}]/u;

function breaksLink(char: string): boolean {
  return STOPS_LINK.test(char) || (char.codePointAt(0)! > 0x7f && /\p{P}/u.test(char));
}

/** `text` with every character `breaks` says of percent-encoded; an escape already there (`%20`) is kept as it is, never encoded twice. */
function encodedWhereNeeded(text: string, breaks: (char: string) => boolean): string {
  let out = '';
  for (let at = 0; at < text.length;) {
    const char = String.fromCodePoint(text.codePointAt(at)!);
    const escape = char === '%' && /^%[0-9a-f]{2}/i.test(text.slice(at, at + 3));
    out += escape || !breaks(char) ? char : percentEncoded(char);
    at += char.length;
  }
  return out;
}

/** What an autolink leaves off a link's end (GitHub's rules): these punctuation marks, and a `)` that closes nothing in it. */
const LEFT_OFF_END = '.,:!*_~';

function keptToTheEnd(link: string): string {
  const opens = link.split('(').length - 1;
  let closes = link.split(')').length - 1;
  let end = link.length;
  let tail = '';
  for (; end > 0; end--) {
    const last = link.charAt(end - 1);
    if (last === ')' && closes > opens) closes--;
    else if (!LEFT_OFF_END.includes(last)) break;
    tail = percentEncoded(last) + tail;
  }
  return link.slice(0, end) + tail;
}

/**
 * The URL as the user is shown it, or undefined when it is not shown. A web link bare, encoded where a
 * link would stop; a bucket's location as code, as the agent wrote it but for its query and fragment (a CLI takes its
 * key literally, so `%20` would name another object; as code no `__` or `*` in it is read as Markdown and a
 * space does not cut it), its control characters encoded. Never a credential (`located`).
 */
export function shownLocation(url: string): string | undefined {
  const found = located(url);
  if (!found) return undefined;
  const { scheme, authority, rest } = found;
  if (WEB_SCHEMES.has(scheme.toLowerCase())) {
    const host = encodedWhereNeeded(authority, (char) => char !== '[' && char !== ']' && breaksLink(char));
    return rest === '' ? `${scheme}://${host}` : `${scheme}://${host}${keptToTheEnd(encodedWhereNeeded(rest, breaksLink))}`;
  }
  if (BUCKET_SCHEMES.has(scheme.toLowerCase())) {
    return codeSpan(encodedWhereNeeded(`${scheme}://${authority}${rest}`, (char) => UNSHOWABLE.test(char)));
  }
  return undefined;
}

/**
 * The file name a hierarchical URL ends with: its last path segment, decoded (taken as written when it does
 * not decode); undefined when its path ends in none, or in a name no text can show (a control character), and
 * when the URL is not read (`located`): a name there may be a piece of a secret.
 */
export function nameInUrl(url: string): string | undefined {
  const rest = located(url)?.rest ?? '';
  const path = rest.slice(0, endAt(rest, /[?#]/));
  const segment = path.slice(path.lastIndexOf('/') + 1);
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // Not UTF-8 once decoded (`%E6%8A`): its name is what the URL says.
  }
  return name.trim() === '' || UNSHOWABLE.test(name) ? undefined : name;
}

/** `%XX` escapes as bytes, every other character as its UTF-8. */
function percentDecoded(text: string): Buffer {
  const bytes: Buffer[] = [];
  let plain = 0;
  for (const escape of text.matchAll(/%[0-9a-f]{2}/gi)) {
    bytes.push(Buffer.from(text.slice(plain, escape.index), 'utf8'), Buffer.from([parseInt(escape[0].slice(1), 16)]));
    plain = escape.index + 3;
  }
  bytes.push(Buffer.from(text.slice(plain), 'utf8'));
  return Buffer.concat(bytes);
}

const DATA_URL = /^data:([^,]*),([\s\S]*)$/i;

/**
 * A `data:` URL's part as the same file's bytes (`raw`), so that it reads as those bytes would, under the
 * same bounds; undefined for any other URL. Its type is the part's, else the URL's (RFC 2397: `text/plain`
 * when it says none); its body is base64 when the URL says so, else percent-encoded bytes.
 */
export function asBytesPart(part: Part): Part | undefined {
  const found = DATA_URL.exec(part.url ?? '');
  if (!found) return undefined;
  const [, head = '', body = ''] = found;
  const params = head.split(';');
  const base64 = params.length > 1 && params.at(-1)!.trim().toLowerCase() === 'base64';
  const declared = (base64 ? params.slice(0, -1) : params).join(';').trim();
  const urlType = declared.split(';')[0]!.trim() === '' ? `text/plain${declared}` : declared;
  // A base64 body is seldom percent-encoded: a large file's is decoded once, not copied through percentDecoded.
  const escaped = body.includes('%');
  const bytes = base64
    ? Buffer.from(escaped ? percentDecoded(body).toString('latin1') : body, 'base64')
    : escaped
      ? percentDecoded(body)
      : Buffer.from(body, 'utf8');
  const { url: _url, ...rest } = part;
  return withFields(rest, { raw: bytes.toString('base64'), mediaType: part.mediaType || urlType });
}
