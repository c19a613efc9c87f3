/**
 * An `Embedder` for any OpenAI-compatible embeddings API: OpenAI itself, and the servers that copy
 * its `/v1/embeddings` route (Ollama, vLLM, llama.cpp's server, LM Studio, LocalAI and others).
 *
 * `POST {url}/embeddings` with `Authorization: Bearer {apiKey}` (left out when there is no key, as
 * local servers take none) and `{model, input: [...], encoding_format: "float", dimensions?}`. The
 * answer is `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`; the
 * API does not promise `data` in input order, so vectors are placed by `index`, and an answer that
 * does not give each index exactly once, each with a vector of the expected length, is refused.
 * Errors are `{error: {message, type, param, code}}`.
 *
 * Inputs go out in batches of `batchSize` (64 unless set; the API takes up to 2048 per request, and
 * all inputs of one request together at most 300,000 tokens), one request after the other. OpenAI
 * refuses an empty string as input, so an empty or whitespace-only text is sent as a single space:
 * it still gets a vector, and the output keeps one vector per text.
 *
 * One attempt per request: the ingestion job that calls `embed` owns the retry schedule, so a
 * failure says whether trying again may help. Retryable, as OpenAI's own SDK treats them: a timeout,
 * a connection error, 408, 409, 429 and 5xx, except a 429 whose code is `insufficient_quota` (the
 * account is out of credit: waiting does not help, someone has to pay). Everything else (400, 401,
 * 403, 404, 422, an answer that is not the documented shape) is not.
 *
 * Docs (checked):
 * - https://platform.openai.com/docs/api-reference/embeddings/create
 * - https://platform.openai.com/docs/guides/embeddings (models, default lengths, `dimensions`)
 * - https://platform.openai.com/docs/guides/error-codes (401, 429 rate limit / quota, 500, 503)
 * - https://github.com/openai/openai-node (`shouldRetry`: 408, 409, 429, >= 500)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import { type Embedder, EmbeddingFailed } from "../Ports/Embedder.js"

export interface OpenAiEmbedderOptions {
  /** The API's base URL, e.g. `https://api.openai.com/v1`; requests go to `{url}/embeddings`. */
  readonly url: string
  /** The model, e.g. `text-embedding-3-small`. */
  readonly model: string
  /** Sent as a bearer token; no `Authorization` header when unset or empty (local servers). */
  readonly apiKey?: string | undefined
  /**
   * Sent as the `dimensions` request field (text-embedding-3 models
   * shorten their vectors) and expected as the vector length.
   */
  readonly dimensions?: number | undefined
  /** Inputs per request, 64 unless set; at most 2048. */
  readonly batchSize?: number | undefined
  /** How long one request may take, answer included; 30 seconds unless set. */
  readonly timeoutMillis?: number | undefined
}

export const OPENAI_EMBEDDINGS_DEFAULT_BATCH_SIZE = 64
export const OPENAI_EMBEDDINGS_MAX_BATCH_SIZE = 2048
export const OPENAI_EMBEDDINGS_DEFAULT_TIMEOUT_MILLIS = 30_000

/** The vector lengths OpenAI documents for its embedding models when no `dimensions` is asked for. */
export const OPENAI_MODEL_DIMENSIONS: ReadonlyMap<string, number> = new Map([
  ["text-embedding-3-small", 1536],
  ["text-embedding-3-large", 3072],
  ["text-embedding-ada-002", 1536]
])

const isPositiveInteger = (n: number) => Number.isInteger(n) && n >= 1

/**
 * The vector length: `dimensions` when given, else the model's documented default. `undefined` when
 * it cannot be known (an unknown model without `dimensions`, or `dimensions` that is not a positive
 * integer): the caller reports a configuration error.
 */
export const dimensionsOf = (options: Pick<OpenAiEmbedderOptions, "model" | "dimensions">): number | undefined =>
  options.dimensions === undefined
    ? OPENAI_MODEL_DIMENSIONS.get(options.model)
    : isPositiveInteger(options.dimensions)
    ? options.dimensions
    : undefined

/** `openai:{model}`, or `openai:{model}@{dimensions}` when the dimensions are set explicitly. */
export const openAiEmbedderId = (options: Pick<OpenAiEmbedderOptions, "model" | "dimensions">): string =>
  options.dimensions === undefined ? `openai:${options.model}` : `openai:${options.model}@${options.dimensions}`

/** What OpenAI refuses (an empty string) becomes a single space. */
const inputOf = (text: string) => (text.trim() === "" ? " " : text)

/** The request body for one batch, as the API documents it. */
export const embeddingsRequestBody = (model: string, texts: ReadonlyArray<string>, dimensions: number | undefined) => ({
  model,
  input: texts.map(inputOf),
  encoding_format: "float",
  ...(dimensions === undefined ? {} : { dimensions })
})

const EmbeddingsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    index: Schema.Int.pipe(Schema.nonNegative()),
    embedding: Schema.Array(Schema.Finite)
  }))
})

const decodeResponse = Schema.decodeUnknownEither(EmbeddingsResponse)

/** Retryable statuses, as OpenAI's SDKs retry them. */
const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** OpenAI's `{error: {message, code}}`, and the variants compatible servers answer with. */
const failureOf = (label: string, status: number, body: unknown): EmbeddingFailed => {
  const fields = record(body)
  const error = record(fields.error)
  const message = typeof error.message === "string"
    ? error.message
    : typeof fields.error === "string"
    ? fields.error
    : typeof fields.message === "string"
    ? fields.message
    : typeof fields.detail === "string"
    ? fields.detail
    : undefined
  const code = typeof error.code === "string" || typeof error.code === "number" ? String(error.code) : undefined
  return new EmbeddingFailed({
    retryable: retryableStatus(status) && code !== "insufficient_quota",
    message: `${label} answered ${status}` +
      (message === undefined ? "" : `: ${message}`) +
      (code === undefined ? "" : ` (${code})`)
  })
}

const malformed = (label: string, reason: string) =>
  new EmbeddingFailed({ retryable: false, message: `${label} sent a malformed response: ${reason}` })

/** The answer's vectors in input order, or why the answer is not usable. */
const vectorsOf = (
  body: unknown,
  count: number,
  dimensions: number
): Either.Either<ReadonlyArray<ReadonlyArray<number>>, string> => {
  const decoded = decodeResponse(body)
  if (Either.isLeft(decoded)) return Either.left(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
  const { data } = decoded.right
  if (data.length !== count) return Either.left(`${data.length} embeddings for ${count} inputs`)
  const vectors = new Array<ReadonlyArray<number>>(count)
  for (const { embedding, index } of data) {
    if (index >= count) return Either.left(`index ${index} for ${count} inputs`)
    if (vectors[index] !== undefined) return Either.left(`index ${index} given twice`)
    if (embedding.length !== dimensions) {
      return Either.left(`embedding ${index} has ${embedding.length} dimensions, expected ${dimensions}`)
    }
    vectors[index] = embedding
  }
  return Either.right(vectors)
}

/**
 * An `Embedder` on an OpenAI-compatible embeddings API. Configuration is the caller's to check
 * (`dimensionsOf` for the vector length): an invalid URL, an unknown model without `dimensions`, or
 * a batch size or timeout out of range is a defect here.
 */
export const makeOpenAiEmbedder = (
  options: OpenAiEmbedderOptions
): Effect.Effect<Embedder, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const dimensions = dimensionsOf(options)
    if (dimensions === undefined) {
      return yield* Effect.dieMessage(
        options.dimensions === undefined
          ? `OpenAiEmbedder: the vector length of model ${options.model} is not known; set dimensions`
          : `OpenAiEmbedder: dimensions must be a positive integer, got ${options.dimensions}`
      )
    }
    const batchSize = options.batchSize ?? OPENAI_EMBEDDINGS_DEFAULT_BATCH_SIZE
    if (!isPositiveInteger(batchSize) || batchSize > OPENAI_EMBEDDINGS_MAX_BATCH_SIZE) {
      return yield* Effect.dieMessage(
        `OpenAiEmbedder: batchSize must be an integer from 1 to ${OPENAI_EMBEDDINGS_MAX_BATCH_SIZE}, got ${batchSize}`
      )
    }
    const timeoutMillis = options.timeoutMillis ?? OPENAI_EMBEDDINGS_DEFAULT_TIMEOUT_MILLIS
    if (!(timeoutMillis > 0) || !Number.isFinite(timeoutMillis)) {
      return yield* Effect.dieMessage(`OpenAiEmbedder: timeoutMillis must be positive, got ${timeoutMillis}`)
    }
    const base = URL.canParse(options.url) ? new URL(options.url) : undefined
    if (base === undefined || (base.protocol !== "http:" && base.protocol !== "https:")) {
      return yield* Effect.dieMessage(`OpenAiEmbedder: url must be an http(s) URL, got ${options.url}`)
    }
    const label = `Embeddings API at ${base.host}`
    const endpoint = `${trimSlash(options.url)}/embeddings`
    const apiKey = options.apiKey === undefined || options.apiKey === "" ? undefined : options.apiKey
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => {
        const json = HttpClientRequest.acceptJson(request)
        return apiKey === undefined ? json : HttpClientRequest.bearerToken(json, apiKey)
      })
    )

    const embedBatch = (texts: ReadonlyArray<string>) =>
      client.execute(
        HttpClientRequest.post(endpoint).pipe(
          HttpClientRequest.bodyText(
            JSON.stringify(embeddingsRequestBody(options.model, texts, options.dimensions)),
            "application/json"
          )
        )
      ).pipe(
        exchange(label, Duration.millis(timeoutMillis)),
        Effect.mapError((failure) => new EmbeddingFailed({ retryable: failure.retryable, message: failure.message })),
        Effect.flatMap(({ body, status }) => {
          if (status < 200 || status >= 300) return Effect.fail(failureOf(label, status, body))
          return Either.match(vectorsOf(body, texts.length, dimensions), {
            onLeft: (reason) => Effect.fail(malformed(label, reason)),
            onRight: Effect.succeed
          })
        }),
        Effect.withSpan("OpenAiEmbedder.request", { attributes: { inputs: texts.length } })
      )

    const embed = (texts: ReadonlyArray<string>) => {
      if (texts.length === 0) return Effect.succeed([])
      const batches: Array<ReadonlyArray<string>> = []
      for (let start = 0; start < texts.length; start += batchSize) batches.push(texts.slice(start, start + batchSize))
      return Effect.forEach(batches, embedBatch).pipe(
        Effect.map((vectors) => vectors.flat()),
        Effect.withSpan("OpenAiEmbedder.embed", { attributes: { model: options.model, inputs: texts.length } })
      )
    }

    const embedder: Embedder = { id: openAiEmbedderId(options), dimensions, embed }
    return embedder
  })
