/**
 * Credentials written into URLs, and the key ids that come with a secret: what the logs, the CLI's messages
 * and the facade's file URLs leave out, and part of what sanitizeUpstreamText (scrub-text.ts) redacts.
 */

/**
 * A URL's `user:password@`, `:password@` or `token@` (also the log's: src/log.ts); replaced by `$1[redacted]@`.
 * Up to the last `@` before the host: a URL parser takes that one, so a password may hold an `@` of its own.
 * A password is often written raw, with a `/` in it (about half of AWS secret keys hold one:
 * `s3a://ID:wJal/K7…@bucket/…`), where the authority would end: after a `:` in the authority the user info
 * runs to the last `@` before a `?`, `#` or blank, else (a `?` or `#` in the password) to the first `@`, unless
 * a port comes first (`host:8080/x?to=a@b`). A port followed by a path with an `@` in it
 * (`host:8080/u/bob@x.com`) is redacted too: it cannot be told from a password. The work is bounded at each
 * position of the text: a scheme is read for at most 32 characters (a run of scheme characters, `a.a.a…`,
 * is not read again to its end from each of them; a scheme glued to a word before it is still found, from
 * further on), and a password that crosses a `/` for at most 1,024 after a `://`.
 */
export const URL_USER_INFO = /([a-z][a-z0-9+.-]{0,31}:\/\/)(?:[^\s/?#@:]*:(?:[^\s?#]{0,1024}|(?!\d*[/?#])[^\s@]{0,1024})@|[^\s/?#]*@)/gi;
/**
 * A query parameter's name and `=`, and when that name is a secret's (`?api_key=…`, `&access_token=…`,
 * `?key=…`, `&sig=…`: looked for behind the `=`, within the name) its value. A name never holds a `?`, so a
 * run of them (`?a?a?a…`) is read once, not again from each; another's value is not taken with the name
 * (`?next=/b?token=…` is found).
 */
const URL_SECRET_QUERY_VALUE = /([?&][^=&#?\s]*=)((?<=(?:token|password|secret|key|credential|auth|sig)[^=&#?\s]*=)[^&#\s]*)?/gi;

/**
 * A text that may hold URLs a person typed (the CLI's messages), without their credentials: the user info
 * and the values of secret-named query parameters. Nothing else is touched, unlike sanitizeUpstreamText:
 * the operator needs the rest of the URL to see which one failed.
 */
export function withoutUrlCredentials(text: string): string {
  return text
    .replace(URL_USER_INFO, '$1[redacted]@')
    .replace(URL_SECRET_QUERY_VALUE, (match: string, name: string, value?: string) => (value === undefined ? match : `${name}[redacted]`));
}

/** An AWS or Alibaba Cloud access key id (`AKIA…`, `ASIA…`, `LTAI…`); its secret may follow after a `:`. */
export const ACCESS_KEY_ID = String.raw`\b(?:AKIA|ASIA|LTAI)[A-Za-z0-9]{12,}`;
/**
 * An access key id with a `:` after it, where its secret follows: file-urls.ts shows no location that holds one,
 * wherever in the URL it stands. The id alone is no secret (a presigned link's `OSSAccessKeyId=LTAI…`).
 */
export const ACCESS_KEY_PAIR = new RegExp(`${ACCESS_KEY_ID}:`);
