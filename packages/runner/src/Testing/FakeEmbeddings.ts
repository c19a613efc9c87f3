/**
 * A fake of OpenAI's embeddings API on a loopback port, for tests, built from its documented request
 * and response shapes:
 *
 * - `POST {url}/embeddings` (`url` is `http://127.0.0.1:{port}/v1`; `/embeddings` without the `/v1`
 *   is answered too), JSON `{model, input, encoding_format?, dimensions?, user?}`;
 * - bearer auth when the fake has an API key: without it, or with another, 401 `{error: {message: "Incorrect API key
 *   provided", type: "invalid_request_error", param: null, code: "invalid_api_key"}}`;
 * - validation: an unknown model is a 404 `model_not_found`; `input` must be a non-empty string or
 *   an array of 1 to 2048 non-empty strings (token arrays are not supported by the fake), each of at
 *   most 8192 tokens and together at most 300,000 (tokens counted roughly, four characters each);
 *   `encoding_format` `float` (the default) or `base64`; `dimensions` from 1 to the model's length,
 *   only for models that can shorten their vectors (the text-embedding-3 family);
 * - the answer `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`;
 *   with `shuffle`, `data` comes in a scrambled order (never the input order for two or more inputs),
 *   which the API allows.
 *
 * Vectors are deterministic and carry meaning: the offline embedder's (`embedText`) at the model's
 * length, with signs flipped per model (so two models' vectors do not compare, while cosines within
 * one model are the offline embedder's), shortened like the text-embedding-3 models (the first
 * `dimensions` values, renormalised). Retrieval tests can rely on overlapping texts scoring higher.
 * Every vector has unit length; a text without words gets a fixed unit vector of its own.
 *
 * Every request is recorded; a test can queue faults (an answer of its choosing, a hung or reset
 * connection, a delay), slow every request down (`delayMillis`, also at runtime with `setDelay`) and
 * read how many inputs were embedded.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as http from "node:http"
import { embedText } from "../Knowledge/OfflineEmbedder.js"
import {
  hash,
  type HttpFault,
  httpServer,
  type JsonRequest,
  listen,
  makeSleeper,
  makeWaiters,
  openAiError,
  parseJson,
  random,
  readJsonRequest,
  record
} from "./FakeHttp.js"

export type RecordedEmbeddingsRequest = JsonRequest

/**
 * What the fake does with the next request instead of answering
 * it normally (`Respond`: OpenAI's error shape unless given).
 */
export type FakeEmbeddingsFault = HttpFault

export interface FakeEmbeddingModel {
  readonly name: string
  /** The model's vector length. */
  readonly dimensions: number
  /** Whether it takes the `dimensions` request field; true for the text-embedding-3 family unless given. */
  readonly shortens?: boolean
}

export interface FakeEmbeddingsOptions {
  /** When set, every request must carry `Authorization: Bearer {apiKey}`; no auth unless given. */
  readonly apiKey?: string
  /**
   * The models the fake knows: OpenAI's names (their documented lengths) or models of your own;
   * `["text-embedding-3-small"]` unless given.
   */
  readonly models?: ReadonlyArray<string | FakeEmbeddingModel>
  /** Answer `data` in a scrambled order. */
  readonly shuffle?: boolean
  /** Real time every request waits before it is answered (0 unless set; see `setDelay`). */
  readonly delayMillis?: number
}

export interface FakeEmbeddingsServer {
  /** The base URL to configure (`EMBEDDINGS_URL`): `http://127.0.0.1:{port}/v1`. */
  readonly url: string
  readonly apiKey: string | undefined
  readonly models: ReadonlyArray<Required<FakeEmbeddingModel>>
  /** Every request received so far, in order. */
  readonly requests: () => ReadonlyArray<RecordedEmbeddingsRequest>
  /** How many inputs the fake has answered vectors for (requests refused or dropped do not count). */
  readonly inputsEmbedded: () => number
  /** Queues a fault for the next request not yet answered (one fault per request, in order). */
  readonly fault: (fault: FakeEmbeddingsFault) => void
  /** Sets the real time every later request waits before it is answered. */
  readonly setDelay: (millis: number) => void
  /**
   * Waits until at least `count` requests have been received; dies, saying what it waited for and what
   * it saw, after `millis` of real time (30 s unless given).
   */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
  /** The vector the fake answers for this text (the first model's unless given), to compare against. */
  readonly vectorOf: (text: string, model?: string, dimensions?: number) => ReadonlyArray<number>
}

/** The lengths OpenAI documents for its embedding models. */
export const FAKE_OPENAI_MODELS: ReadonlyArray<Required<FakeEmbeddingModel>> = [
  { name: "text-embedding-3-small", dimensions: 1536, shortens: true },
  { name: "text-embedding-3-large", dimensions: 3072, shortens: true },
  { name: "text-embedding-ada-002", dimensions: 1536, shortens: false }
]

const MAX_INPUTS = 2048
const MAX_INPUT_TOKENS = 8192
const MAX_REQUEST_TOKENS = 300_000

const invalidRequest = (message: string, code: string | null = null, param: string | null = null) => ({
  status: 400,
  body: openAiError(message, "invalid_request_error", code, param)
})

const INVALID_INPUT =
  "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."

const defaultFaultBody = (status: number, model: string): unknown =>
  status === 429
    ? openAiError(
      `Rate limit reached for ${model} on requests per min (RPM): Limit 3000, Used 3000, Requested 1. Please try ` +
        `again in 20ms.`,
      "requests",
      "rate_limit_exceeded"
    )
    : status === 503
    ? openAiError("The engine is currently overloaded, please try again later", "server_error")
    : status >= 500
    ? openAiError("The server had an error while processing your request. Sorry about that!", "server_error")
    : status === 401
    ? openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
    : openAiError("Bad request", "invalid_request_error")

/** Rough token count: about four characters a token, as OpenAI's rule of thumb has it. */
const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4))

/** A permutation of 0..n-1 that is not the identity when n ≥ 2. */
const scrambled = (n: number, seed: number): Array<number> => {
  const order = Array.from({ length: n }, (_, i) => i)
  const next = random(seed)
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    const swapped = order[i]
    order[i] = order[j]
    order[j] = swapped
  }
  return order.every((value, i) => value === i) ? order.reverse() : order
}

const normalised = (vector: Array<number>, fallbackKey: string): Array<number> => {
  let norm = 0
  for (const x of vector) norm += x * x
  if (norm === 0) {
    vector[hash(fallbackKey) % vector.length] = 1
    return vector
  }
  norm = Math.sqrt(norm)
  return vector.map((x) => x / norm)
}

const resolveModel = (model: string | FakeEmbeddingModel): Required<FakeEmbeddingModel> => {
  if (typeof model !== "string") {
    if (!Number.isInteger(model.dimensions) || model.dimensions < 1) {
      throw new RangeError(`FakeEmbeddings: model ${model.name} needs a positive integer length`)
    }
    return {
      name: model.name,
      dimensions: model.dimensions,
      shortens: model.shortens ?? model.name.startsWith("text-embedding-3")
    }
  }
  const known = FAKE_OPENAI_MODELS.find((m) => m.name === model)
  if (known === undefined) throw new RangeError(`FakeEmbeddings: unknown model ${model}; give it as {name, dimensions}`)
  return known
}

interface Answer {
  readonly status: number
  readonly body: unknown
  /** Inputs embedded by this answer. */
  readonly inputs?: number
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const makeFakeEmbeddings = (
  options: FakeEmbeddingsOptions = {}
): Effect.Effect<FakeEmbeddingsServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const models = (options.models ?? ["text-embedding-3-small"]).map(resolveModel)
    if (models.length === 0) return yield* Effect.dieMessage("FakeEmbeddings: give at least one model")
    const apiKey = options.apiKey
    const recorded: Array<RecordedEmbeddingsRequest> = []
    const faults: Array<FakeEmbeddingsFault> = []
    const waiters = makeWaiters("FakeEmbeddings")
    // Real time; the scope's close wakes every sleeper so no timer outlives the fake.
    const { sleep, wakeAll } = makeSleeper()
    const signs = new Map<string, Int8Array>()
    let delayMillis = options.delayMillis ?? 0
    let inputsEmbedded = 0
    let answered = 0

    const signsOf = (model: Required<FakeEmbeddingModel>) => {
      let s = signs.get(model.name)
      if (s === undefined) {
        const next = random(hash(model.name))
        s = Int8Array.from({ length: model.dimensions }, () => (next() < 0.5 ? 1 : -1))
        signs.set(model.name, s)
      }
      return s
    }

    const vectorFor = (text: string, model: Required<FakeEmbeddingModel>, dimensions: number | undefined) => {
      const s = signsOf(model)
      const full = normalised(
        embedText(text, model.dimensions).map((x, i) => (x === 0 ? 0 : x * s[i])),
        `${model.name}:${text}`
      )
      return dimensions === undefined || dimensions === model.dimensions
        ? full
        : normalised(full.slice(0, dimensions), `${model.name}:${dimensions}:${text}`)
    }

    const embeddings = (request: RecordedEmbeddingsRequest): Answer => {
      if (apiKey !== undefined && request.headers.authorization !== `Bearer ${apiKey}`) {
        return {
          status: 401,
          body: openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
        }
      }
      if (request.method !== "POST") {
        return {
          status: 405,
          body: openAiError(`Invalid method for URL (${request.method} ${request.path})`, "invalid_request_error")
        }
      }
      const parsed = parseJson(request.rawBody)
      if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
        return invalidRequest(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP " +
            "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
        )
      }
      const body = record(parsed.value)
      if (typeof body.model !== "string" || body.model === "") {
        return invalidRequest("You must provide a model parameter.")
      }
      const model = models.find((m) => m.name === body.model)
      if (model === undefined) {
        return {
          status: 404,
          body: openAiError(
            `The model \`${body.model}\` does not exist or you do not have access to it.`,
            "invalid_request_error",
            "model_not_found"
          )
        }
      }
      const input = typeof body.input === "string" ? [body.input] : body.input
      if (
        !Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS ||
        !input.every((text) => typeof text === "string" && text !== "")
      ) {
        return invalidRequest(INVALID_INPUT)
      }
      const texts = input as Array<string>
      const tokens = texts.map(tokensOf)
      const longest = Math.max(...tokens)
      if (longest > MAX_INPUT_TOKENS) {
        return invalidRequest(
          `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you requested ${longest} ` +
            `tokens (${longest} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`
        )
      }
      const total = tokens.reduce((sum, n) => sum + n, 0)
      if (total > MAX_REQUEST_TOKENS) {
        return invalidRequest(
          `Requested ${total} tokens, max ${MAX_REQUEST_TOKENS} tokens per request`,
          "max_tokens_per_request",
          "input"
        )
      }
      const format = body.encoding_format ?? "float"
      if (format !== "float" && format !== "base64") {
        return invalidRequest(
          `'${String(format)}' is not one of ['float', 'base64'] - 'encoding_format'`,
          null,
          "encoding_format"
        )
      }
      const dimensions = body.dimensions
      if (dimensions !== undefined) {
        if (!model.shortens) {
          return invalidRequest("This model does not support specifying dimensions.", null, "dimensions")
        }
        if (
          typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 ||
          dimensions > model.dimensions
        ) {
          return invalidRequest(
            `Invalid value for 'dimensions' = ${
              JSON.stringify(dimensions)
            }. Must be an integer from 1 to ${model.dimensions}.`,
            null,
            "dimensions"
          )
        }
      }
      const data = texts.map((text, index) => {
        const vector = vectorFor(text, model, dimensions as number | undefined)
        return {
          object: "embedding",
          index,
          embedding: format === "float" ? vector : Buffer.from(Float32Array.from(vector).buffer).toString("base64")
        }
      })
      answered++
      const ordered = options.shuffle === true
        ? scrambled(data.length, answered).map((i) => data[i])
        : data
      return {
        status: 200,
        body: {
          object: "list",
          data: ordered,
          model: model.name,
          usage: { prompt_tokens: total, total_tokens: total }
        },
        inputs: texts.length
      }
    }

    const route = (request: RecordedEmbeddingsRequest): Answer => {
      const pathname = new URL(request.path, "http://localhost").pathname
      if (pathname === "/v1/embeddings" || pathname === "/embeddings") return embeddings(request)
      return {
        status: 404,
        body: openAiError(`Invalid URL (${request.method} ${pathname})`, "invalid_request_error")
      }
    }

    const respond = (response: http.ServerResponse, answer: Answer) => {
      const text = JSON.stringify(answer.body)
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        "x-request-id": `req_${hash(`${recorded.length}:${text.length}`).toString(16)}`
      })
      response.end(text)
    }

    const handle = async (incoming: http.IncomingMessage, response: http.ServerResponse) => {
      const request: RecordedEmbeddingsRequest = await readJsonRequest(incoming)
      recorded.push(request)
      waiters.wake()
      const fault = faults.shift()
      await sleep(delayMillis)
      if (response.destroyed) return
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void incoming.socket.destroy()
      if (fault?._tag === "Respond") {
        const model = typeof record(request.body).model === "string"
          ? record(request.body).model as string
          : models[0].name
        return respond(response, { status: fault.status, body: fault.body ?? defaultFaultBody(fault.status, model) })
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      if (response.destroyed) return
      const answer = route(request)
      respond(response, answer)
      inputsEmbedded += answer.inputs ?? 0
    }

    const port = yield* listen(
      httpServer(
        handle,
        (response, error) => respond(response, { status: 500, body: openAiError(String(error), "server_error") })
      ),
      wakeAll
    )

    const fake: FakeEmbeddingsServer = {
      url: `http://127.0.0.1:${port}/v1`,
      apiKey,
      models,
      requests: () => recorded.slice(),
      inputsEmbedded: () => inputsEmbedded,
      fault: (fault) => void faults.push(fault),
      setDelay: (millis) => {
        delayMillis = millis
      },
      awaitRequests: (count, millis) =>
        waiters.until(`${count} request(s)`, () => recorded.length >= count, millis, () => `saw ${recorded.length}`),
      vectorOf: (text, modelName, dimensions) => {
        const model = modelName === undefined ? models[0] : models.find((m) => m.name === modelName)
        if (model === undefined) throw new RangeError(`FakeEmbeddings: unknown model ${modelName}`)
        return vectorFor(text, model, dimensions)
      }
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeEmbeddings extends Context.Tag("Testing/FakeEmbeddings")<FakeEmbeddings, FakeEmbeddingsServer>() {
  static readonly layer = (options: FakeEmbeddingsOptions = {}) =>
    Layer.scoped(FakeEmbeddings, makeFakeEmbeddings(options))
}
