import { randomUUID } from 'node:crypto';
import type { BailianConfig } from '../../config/bailian-schema.js';
import { withFields, A2AError, parseSendMessageRequest, type AgentCard, type SendMessageRequest, type Task } from '../../model/index.js';
import { isRecord, type JsonObject } from '../../model/json.js';
import { isBase64 } from '../../model/well-formed.js';
import { acceptsMediaType, imagesAsParts, joinText, nestExtensionMetadata } from '../../translate/index.js';
import { facadeWords, type FacadeWords } from './reply/words.js';
import { fetchImageUrls, imageUrlsToFetch, type ImageUrlFetch } from './turn/image-urls.js';

/** The refusals are thrown in English: the turn's language is read after (told-in-turn-language.ts inputRefusal). */
const EN = facadeWords('en');

/**
 * The turn's message with its URL images, once fetched: applied to the request the turn sends, which
 * routing may have aimed at the context's task meanwhile; the images do not change how a turn is routed.
 */
export type LaterImages = Promise<(request: SendMessageRequest) => SendMessageRequest>;

/**
 * One turn as the facade will run it: the 1.0 request (and its URL images, `images`, while they are
 * fetched), or a task that failed without reaching the upstream, its reason in the turn's words.
 */
export type TurnInput =
  | { request: SendMessageRequest; rejected?: undefined; images?: LaterImages }
  | { request: SendMessageRequest; rejected: (words: FacadeWords) => Task };

/** The answer to a non-text message under `non-text-parts: fail-task`: iac-code's own words for it, in the turn's language. */
function textOnlyFailure(request: SendMessageRequest, words: FacadeWords): Task {
  const id = randomUUID();
  return {
    id,
    contextId: request.message.contextId ?? randomUUID(),
    status: {
      state: 'TASK_STATE_FAILED',
      message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: words.textInputOnly }] },
      timestamp: new Date().toISOString(),
    },
  };
}

/**
 * A 0.2.5 caller's message is the user's: `role: "agent"` means the A2A server (spec 0.2.5 `Message.role`),
 * and an agent files what it is sent in the task's history, where the caller's words would then read as the
 * agent's. Checked on the params as sent, before a call is relayed (passthrough) or translated, so the
 * caller is told in its own terms; a message without a role is the schema's business.
 */
export function requireUserRole(params: unknown): void {
  const role = isRecord(params) && isRecord(params.message) ? params.message.role : undefined;
  if (role === undefined || role === 'user') return;
  const description = "must be user: a caller's message is the user's";
  throw A2AError.invalidParams(`Invalid params: message.role: ${description}`, [{ field: 'message.role', description }]);
}

/**
 * A 0.2.5 file part's `file.bytes` must decode: checked on the params as sent, before translation, so the caller
 * is told the field it wrote (`message.parts.0.file.bytes`), not the 1.0 `raw` the facade makes of it, which the
 * 1.0 model refuses in the same words after (model/well-formed.ts).
 */
export function requireDecodableFiles(params: unknown): void {
  const parts = isRecord(params) && isRecord(params.message) && Array.isArray(params.message.parts) ? params.message.parts : [];
  parts.forEach((part: unknown, at) => {
    const bytes = isRecord(part) && part.kind === 'file' && isRecord(part.file) ? part.file.bytes : undefined;
    if (typeof bytes !== 'string' || isBase64(bytes)) return;
    const field = `message.parts.${at}.file.bytes`;
    throw A2AError.invalidParams(`Invalid params: ${field}: not base64`, [{ field, description: 'not base64' }]);
  });
}

/** Whether the agent of `card` takes a part of a media type: by its default input modes or any skill's. Without a card, nothing. */
export function cardAccepts(card: AgentCard | undefined): (mediaType: string) => boolean {
  // Asked only for a message that carries images: nothing is gathered for the usual turn.
  return (mediaType) =>
    card !== undefined && acceptsMediaType([...card.defaultInputModes, ...card.skills.flatMap((skill) => skill.inputModes ?? [])], mediaType);
}

/**
 * The facade's rules for an inbound message, after translation to 1.0: the 1.0 model's own checks
 * (the id rule on contextId/taskId, -32602), the `non-text-parts` policy, no empty text, and Bailian's
 * extension metadata moved under `extension-metadata-key` for the upstream, its images made parts when
 * `acceptsImage` takes their type (`bailian.images: parts`): base64 ones at once, and, when `imageUrls`
 * is given (`bailian.image-urls`), URL ones once fetched (`images`): the caller need not wait for them
 * to begin the turn.
 */
export function turnInput(
  v1Params: unknown,
  bailian: BailianConfig,
  acceptsImage: (mediaType: string) => boolean = () => false,
  imageUrls?: Omit<ImageUrlFetch, 'config'>,
): TurnInput {
  const request = parseSendMessageRequest(v1Params);
  const { message } = request;
  const nonText = message.parts.some((part) => part.text === undefined);
  if (nonText && bailian['non-text-parts'] === 'error') {
    throw toldLater(A2AError.contentTypeNotSupported(EN.textPartsOnly), (words) => words.textPartsOnly);
  }
  if (nonText && bailian['non-text-parts'] === 'fail-task') return { request, rejected: (words) => textOnlyFailure(request, words) };
  const key = bailian['extension-metadata-key'];
  const metadata = nestExtensionMetadata(message.metadata, key);
  const namespace = metadata?.[key];
  // A photo sent without words is a turn: the images are what the user said, once the agent gets one.
  const wordless = !nonText && joinText(message.parts).trim() === '';
  if (wordless && !carriesImages(namespace)) throw emptyText(false);
  const nested = metadata === message.metadata ? request : withFields(request, { message: withFields(message, { metadata }) });
  // Left in the metadata (`bailian.images: metadata`), the images reach an agent that reads Bailian's extension there.
  if (bailian.images !== 'parts' || !isRecord(namespace)) return { request: nested };
  const config = bailian['image-urls'];
  const asParts = (turn: SendMessageRequest, fetched?: ReadonlyMap<number, string>): SendMessageRequest => {
    const sent = withImages(turn, key, namespace, acceptsImage, fetched);
    // None became a part (a type the agent's card does not take, a URL not fetched): the agent would get nothing.
    if (wordless && sent.message.parts.every((part) => part.text !== undefined)) throw emptyText(true);
    return sent;
  };
  // Most turns carry no URL images: no promise to wait for then.
  const urls = imageUrls ? imageUrlsToFetch(namespace, acceptsImage, config) : [];
  if (!imageUrls || urls.length === 0) return { request: asParts(nested) };
  const images = fetchImageUrls(urls, withFields(imageUrls, { config })).then((fetched) => (turn: SendMessageRequest) => asParts(turn, fetched));
  return { request: nested, images };
}

/**
 * A message without words, in `words`; with images none of which reaches the agent (`unseenImages`), saying why, so
 * that the user who sent a photo does not read that they sent nothing.
 */
const emptyTextIn = (words: FacadeWords, unseenImages: boolean): string =>
  words.invalidParams('message.parts', `${words.emptyText}${unseenImages ? words.noImageReaches : ''}`);

function emptyText(unseenImages: boolean): A2AError {
  const description = `${EN.emptyText}${unseenImages ? EN.noImageReaches : ''}`;
  const error = A2AError.invalidParams(emptyTextIn(EN, unseenImages), [{ field: 'message.parts', description }]);
  return toldLater(error, (words) => emptyTextIn(words, unseenImages));
}

/** This module's refusals, each with its words in a turn's language: known by the error object, not by its text. */
const refusals = new WeakMap<A2AError, (words: FacadeWords) => string>();

function toldLater(error: A2AError, told: (words: FacadeWords) => string): A2AError {
  refusals.set(error, told);
  return error;
}

/**
 * How to tell `error` in a turn's words when it is one of this module's refusals (thrown in English, under its code
 * and field name, which stay): a Bailian user reads them. Undefined for any other error.
 */
export function inputRefusal(error: A2AError): ((words: FacadeWords) => string) | undefined {
  return refusals.get(error);
}

const carriesImages = (namespace: unknown): boolean => isRecord(namespace) && Array.isArray(namespace.images) && namespace.images.length > 0;

/** The request with Bailian's images (base64, and those `fetched`) as parts, and the rest left in its metadata. */
function withImages(
  request: SendMessageRequest,
  key: string,
  namespace: JsonObject,
  acceptsImage: (mediaType: string) => boolean,
  fetched?: ReadonlyMap<number, string>,
): SendMessageRequest {
  const images = imagesAsParts(namespace, acceptsImage, fetched);
  if (!images) return request;
  const { message } = request;
  const parts = [...message.parts, ...images.parts];
  return withFields(request, { message: withFields(message, { parts, metadata: withFields(message.metadata, { [key]: images.namespace }) }) });
}
