/**
 * The conversation's workspace folder (workspaces.ts) in iac-code's words, made relative to it: iac-code
 * works in `<root>/ctx-<digest>` and says so ("我已将模板写入 /srv/ws/ctx-4992…/main.tf"), but that
 * folder is the gateway's layout, not the caller's to know. A file in it reads as its path in the
 * workspace (`main.tf`), the folder itself as `./`. Only this conversation's folder: any other path is
 * the agent's word and stays as written (answers are not scrubbed: docs/security.md).
 *
 * The folder is matched as a path, not as a substring: not right after a character that would make it
 * part of a longer path (`/mnt/srv/ws/ctx-…`), and not followed by a name character (`ctx-…0` would be
 * another folder).
 */

/** Characters a path may have before the folder's leading `/` without it being the start of the path. */
const PATH_CHARACTER = /[\w.~/\\-]/;
/** What may follow the folder's name when it still is that folder (a name character would make it another). */
const NAME_GOES_ON = '[\\w-]';
/**
 * What may follow `<folder>/` for it to be a file's path in it (`main.tf`, `.terraform`, `模板.tf`): not
 * white space, and not the punctuation or brackets a sentence puts after a path.
 */
const FILE_NAME_START = '[^\\s"\'`<>()\\[\\]{}，。、；：！？（）「」『』【】《》,;!?]';

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

export class FolderInText {
  /** `<folder>/+` before a file name (group 1), or the folder alone; made the first time a text names the folder. */
  #pattern: RegExp | undefined;

  constructor(readonly folder: string) {}

  get #matcher(): RegExp {
    const name = escaped(this.folder);
    return (this.#pattern ??= new RegExp(`(?<!${PATH_CHARACTER.source})${name}(?:(\\/+)(?=${FILE_NAME_START})|\\/*(?!${NAME_GOES_ON}))`, 'g'));
  }

  /**
   * `text` with the folder made relative. `before`: the character the text follows (a streamed chunk's
   * predecessor), which says whether a path starting the text is the folder's or a longer one's.
   */
  relative(text: string, before = ''): string {
    if (!text.includes(this.folder)) return text;
    const shifted = before + text;
    const replaced = shifted.replace(this.#matcher, (match: string, slashes: string | undefined, at: number) => {
      if (at < before.length) return match;
      return slashes === undefined ? './' : '';
    });
    return replaced.slice(before.length);
  }

  /**
   * Where the end of `text` could begin the folder's path, whose rest is still to come: the folder or part
   * of its start (`/srv/w`), or the folder and slashes (what follows says whether it names a file). Beyond
   * that index the text cannot be told yet; `text.length` when all of it can.
   */
  undecidedFrom(text: string, before = ''): number {
    const { folder } = this;
    const trimmed = text.replace(/\/+$/, '');
    if (trimmed.endsWith(folder) && this.#startsPath(text, trimmed.length - folder.length, before)) return trimmed.length - folder.length;
    for (let at = text.indexOf('/', Math.max(0, text.length - folder.length + 1)); at >= 0; at = text.indexOf('/', at + 1)) {
      if (folder.startsWith(text.slice(at)) && this.#startsPath(text, at, before)) return at;
    }
    return text.length;
  }

  #startsPath(text: string, at: number, before: string): boolean {
    const previous = at > 0 ? text[at - 1]! : before;
    return previous === '' || !PATH_CHARACTER.test(previous);
  }
}

/**
 * One message's text, streamed in chunks: each chunk is told at once but for its last few characters when
 * they could begin the folder's path (at most the folder's length), which wait for the next chunk of the
 * same message, or for `end()`. So a path split between chunks is still found, and no chunk waits whole
 * unless all of it could be the folder's start.
 */
export class RelativeTextStream {
  #held = '';
  /** The last character told, as the agent wrote it: whether a path that starts the next chunk is a longer one's. */
  #before = '';

  constructor(readonly folder: FolderInText) {}

  get holding(): boolean {
    return this.#held !== '';
  }

  /** What is held, as the agent wrote it. */
  get held(): string {
    return this.#held;
  }

  /** What of `chunk` (after what was held) can be told now. */
  push(chunk: string): string {
    if (this.#held === '' && !chunk.includes('/')) {
      if (chunk !== '') this.#before = chunk.at(-1)!;
      return chunk;
    }
    const text = this.#held + chunk;
    const cut = this.folder.undecidedFrom(text, this.#before);
    const told = text.slice(0, cut);
    this.#held = text.slice(cut);
    const relative = this.folder.relative(told, this.#before);
    if (told !== '') this.#before = told.at(-1)!;
    return relative;
  }

  /** The message is over: what was held, told as it stands. */
  end(): string {
    const held = this.#held;
    this.#held = '';
    const relative = this.folder.relative(held, this.#before);
    this.#before = '';
    return relative;
  }
}
