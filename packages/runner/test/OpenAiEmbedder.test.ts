import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import {
  dimensionsOf,
  embeddingsRequestBody,
  makeOpenAiEmbedder,
  type OpenAiEmbedderOptions
} from "@voiceagent/runner/Knowledge/OpenAiEmbedder"
import { cosineSimilarity, type EmbeddingFailed } from "@voiceagent/runner/Ports/Embedder"
import {
  type FakeEmbeddingsOptions,
  type FakeEmbeddingsServer,
  makeFakeEmbeddings
} from "@voiceagent/runner/Testing/FakeEmbeddings"
import { Effect, Exit } from "effect"

const MODEL = "text-embedding-3-small"
const API_KEY = "sk-test-0123456789abcdef"

const embedderFor = (fake: FakeEmbeddingsServer, overrides: Partial<OpenAiEmbedderOptions> = {}) =>
  makeOpenAiEmbedder({ url: fake.url, model: MODEL, apiKey: fake.apiKey, ...overrides })

const failure = <A>(effect: Effect.Effect<A, EmbeddingFailed>) => Effect.flip(effect)

const texts = (n: number) =>
  Array.from({ length: n }, (_, i) => `Passage number ${i} about plan ${i % 7} and roaming zone ${i % 5}`)

const inputsOf = (fake: FakeEmbeddingsServer) =>
  fake.requests().map((request) => (request.body as { readonly input: ReadonlyArray<string> }).input)

const norm = (v: ReadonlyArray<number>) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))

const withFake = (options: FakeEmbeddingsOptions = {}) => makeFakeEmbeddings({ apiKey: API_KEY, ...options })

describe("dimensionsOf and the id", () => {
  it("knows OpenAI's documented lengths, prefers explicit dimensions, and knows nothing else", () => {
    assert.strictEqual(dimensionsOf({ model: "text-embedding-3-small" }), 1536)
    assert.strictEqual(dimensionsOf({ model: "text-embedding-3-large" }), 3072)
    assert.strictEqual(dimensionsOf({ model: "text-embedding-ada-002" }), 1536)
    assert.strictEqual(dimensionsOf({ model: "text-embedding-3-large", dimensions: 256 }), 256)
    assert.strictEqual(dimensionsOf({ model: "nomic-embed-text", dimensions: 768 }), 768)
    assert.isUndefined(dimensionsOf({ model: "nomic-embed-text" }))
    assert.isUndefined(dimensionsOf({ model: "constructor" }))
    assert.isUndefined(dimensionsOf({ model: MODEL, dimensions: 0 }))
    assert.isUndefined(dimensionsOf({ model: MODEL, dimensions: 12.5 }))
  })

  it("sends the documented request body, with a space for empty texts", () => {
    assert.deepStrictEqual(embeddingsRequestBody(MODEL, ["a", "", " \n"], undefined), {
      model: MODEL,
      input: ["a", " ", " "],
      encoding_format: "float"
    })
    assert.deepStrictEqual(embeddingsRequestBody(MODEL, ["a"], 256), {
      model: MODEL,
      input: ["a"],
      encoding_format: "float",
      dimensions: 256
    })
  })
})

layer(NodeHttpClient.layerUndici)("OpenAiEmbedder", (it) => {
  it.scoped("names the model, and the dimensions when set explicitly; refuses what it cannot size", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const plain = yield* embedderFor(fake)
      assert.deepStrictEqual([plain.id, plain.dimensions], ["openai:text-embedding-3-small", 1536])
      const large = yield* embedderFor(fake, { model: "text-embedding-3-large" })
      assert.deepStrictEqual([large.id, large.dimensions], ["openai:text-embedding-3-large", 3072])
      const short = yield* embedderFor(fake, { dimensions: 256 })
      assert.deepStrictEqual([short.id, short.dimensions], ["openai:text-embedding-3-small@256", 256])

      const defects = [
        { model: "nomic-embed-text" },
        { dimensions: -1 },
        { batchSize: 0 },
        { batchSize: 2049 },
        { timeoutMillis: 0 },
        { url: "not a url" },
        { url: "ftp://example.com/v1" }
      ]
      for (const overrides of defects) {
        const exit = yield* Effect.exit(embedderFor(fake, overrides))
        assert.isTrue(Exit.isFailure(exit) && !Exit.isInterrupted(exit), JSON.stringify(overrides))
      }
      assert.strictEqual(fake.requests().length, 0)
    }))

  it.scoped("posts the documented request with a bearer token and answers vectors in input order, even shuffled", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ shuffle: true })
      const embedder = yield* embedderFor(fake, { url: `${fake.url}/` })
      const input = ["How do I top up my prepaid SIM?", "Roaming charges in Mexico", "Cancel my contract", "eSIM setup"]
      const vectors = yield* embedder.embed(input)

      const [request] = fake.requests()
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.path, "/v1/embeddings")
      assert.strictEqual(request.headers.authorization, `Bearer ${API_KEY}`)
      assert.match(request.headers["content-type"], /^application\/json/)
      assert.deepStrictEqual(request.body, { model: MODEL, input, encoding_format: "float" })

      // The fake answered in another order; the adapter put each vector back in its place.
      assert.deepStrictEqual(vectors, input.map((text) => fake.vectorOf(text)))
      for (const v of vectors) {
        assert.strictEqual(v.length, 1536)
        assert.closeTo(norm(v), 1, 1e-9)
      }
      assert.strictEqual(fake.inputsEmbedded(), 4)
    }))

  it.scoped("sends batches of batchSize one after the other, and nothing for no input", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ shuffle: true })
      const embedder = yield* embedderFor(fake)
      assert.deepStrictEqual(yield* embedder.embed([]), [])
      assert.strictEqual(fake.requests().length, 0)

      const input = texts(150)
      const vectors = yield* embedder.embed(input)
      assert.deepStrictEqual(inputsOf(fake).map((batch) => batch.length), [64, 64, 22])
      assert.deepStrictEqual(inputsOf(fake).flat(), input)
      assert.strictEqual(vectors.length, 150)
      assert.deepStrictEqual(vectors[0], fake.vectorOf(input[0]))
      assert.deepStrictEqual(vectors[149], fake.vectorOf(input[149]))
      assert.strictEqual(fake.inputsEmbedded(), 150)

      const small = yield* embedderFor(fake, { batchSize: 2 })
      yield* small.embed(["one", "two", "three"])
      assert.deepStrictEqual(inputsOf(fake).slice(3), [["one", "two"], ["three"]])
    }))

  it.scoped("sends an empty or blank text as a single space and still answers its vector", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake)
      const vectors = yield* embedder.embed(["", "data caps", "  \n\t"])
      assert.deepStrictEqual(inputsOf(fake), [[" ", "data caps", " "]])
      assert.strictEqual(vectors.length, 3)
      for (const v of vectors) assert.strictEqual(v.length, 1536)
    }))

  it.scoped("sends no Authorization header without a key; a missing or wrong key is a permanent 401", () =>
    Effect.gen(function*() {
      const open = yield* makeFakeEmbeddings()
      yield* (yield* embedderFor(open)).embed(["hello"])
      assert.isUndefined(open.requests()[0].headers.authorization)

      const fake = yield* withFake()
      const missing = yield* failure((yield* embedderFor(fake, { apiKey: undefined })).embed(["hello"]))
      assert.isUndefined(fake.requests()[0].headers.authorization)
      const empty = yield* failure((yield* embedderFor(fake, { apiKey: "" })).embed(["hello"]))
      const wrong = yield* failure((yield* embedderFor(fake, { apiKey: "sk-wrong" })).embed(["hello"]))
      for (const error of [missing, empty, wrong]) {
        assert.isFalse(error.retryable)
        assert.strictEqual(
          error.message,
          "Embeddings API at " + new URL(fake.url).host + " answered 401: Incorrect API key provided (invalid_api_key)"
        )
      }
      assert.strictEqual(fake.inputsEmbedded(), 0)
    }))

  it.scoped("an unknown model, a bad request or a refused dimensions is permanent", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ models: ["text-embedding-3-small", "text-embedding-ada-002"] })
      const unknown = yield* failure(
        (yield* embedderFor(fake, { model: "text-embedding-4-huge", dimensions: 64 })).embed(["x"])
      )
      assert.isFalse(unknown.retryable)
      assert.include(unknown.message, "answered 404: The model `text-embedding-4-huge` does not exist")
      assert.include(unknown.message, "(model_not_found)")

      const ada = yield* failure(
        (yield* embedderFor(fake, { model: "text-embedding-ada-002", dimensions: 256 })).embed(["x"])
      )
      assert.isFalse(ada.retryable)
      assert.include(ada.message, "answered 400: This model does not support specifying dimensions.")

      for (const status of [400, 401, 403, 404, 422]) {
        fake.fault({ _tag: "Respond", status })
        const error = yield* failure((yield* embedderFor(fake)).embed(["x"]))
        assert.isFalse(error.retryable, String(status))
        assert.include(error.message, `answered ${status}`)
      }
    }))

  it.scoped("429, 5xx, 408 and 409 are retryable; a 429 for an exhausted quota is not", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake)
      for (const status of [429, 500, 502, 503, 504, 408, 409]) {
        fake.fault({ _tag: "Respond", status })
        const error = yield* failure(embedder.embed(["x"]))
        assert.isTrue(error.retryable, String(status))
        assert.include(error.message, `answered ${status}`)
      }
      fake.fault({ _tag: "Respond", status: 429 })
      assert.include((yield* failure(embedder.embed(["x"]))).message, "Rate limit reached for text-embedding-3-small")
      fake.fault({ _tag: "Respond", status: 503 })
      assert.include(
        (yield* failure(embedder.embed(["x"]))).message,
        "answered 503: The engine is currently overloaded"
      )

      fake.fault({
        _tag: "Respond",
        status: 429,
        body: {
          error: {
            message: "You exceeded your current quota, please check your plan and billing details.",
            type: "insufficient_quota",
            param: null,
            code: "insufficient_quota"
          }
        }
      })
      const quota = yield* failure(embedder.embed(["x"]))
      assert.isFalse(quota.retryable)
      assert.include(quota.message, "You exceeded your current quota")

      // A failure in the second batch fails the call; one attempt per request, no internal retry.
      const batched = yield* embedderFor(fake, { batchSize: 2 })
      const before = fake.requests().length
      fake.fault({ _tag: "Delay", millis: 0 }) // the first batch goes through
      fake.fault({ _tag: "Respond", status: 503 })
      assert.isTrue((yield* failure(batched.embed(["a", "b", "c", "d", "e"]))).retryable)
      assert.strictEqual(fake.requests().length - before, 2)

      assert.lengthOf(yield* embedder.embed(["x"]), 1)
    }))

  it.scoped("a reset connection is retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake)
      fake.fault({ _tag: "Reset" })
      const reset = yield* failure(embedder.embed(["x"]))
      assert.isTrue(reset.retryable)
      assert.include(reset.message, "could not be reached")
      assert.lengthOf(yield* embedder.embed(["x"]), 1)
    }))

  it.scoped("refuses a malformed answer, permanently", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake, { dimensions: 3 })
      const item = (index: number, embedding: ReadonlyArray<unknown> = [0.6, 0.8, 0]) => ({
        object: "embedding",
        index,
        embedding
      })
      const list = (data: ReadonlyArray<unknown>) => ({
        object: "list",
        data,
        model: MODEL,
        usage: { prompt_tokens: 2, total_tokens: 2 }
      })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [list([{ object: "embedding", embedding: [1, 0, 0] }, item(1)]), "index"],
        [list([item(0), item(1, [1, 0])]), "embedding 1 has 2 dimensions, expected 3"],
        [list([item(0), item(0)]), "index 0 given twice"],
        [list([item(0), item(2)]), "index 2 for 2 inputs"],
        [list([item(0)]), "1 embeddings for 2 inputs"],
        [list([item(0), item(1, [1, "0", 0])]), "Expected number"],
        [{ object: "list" }, "data"],
        ["not json at all", "Expected"]
      ]
      for (const [body, reason] of cases) {
        fake.fault({ _tag: "Respond", status: 200, body })
        const error = yield* failure(embedder.embed(["a", "b"]))
        assert.isFalse(error.retryable, reason)
        assert.include(error.message, "malformed response")
        assert.include(error.message, reason)
      }
      // Reversed but complete is fine.
      fake.fault({ _tag: "Respond", status: 200, body: list([item(1, [0, 0, 1]), item(0, [1, 0, 0])]) })
      assert.deepStrictEqual(yield* embedder.embed(["a", "b"]), [[1, 0, 0], [0, 0, 1]])
    }))

  it.scoped("sends dimensions and expects vectors of that length", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ models: ["text-embedding-3-large"] })
      const embedder = yield* embedderFor(fake, { model: "text-embedding-3-large", dimensions: 256 })
      const [v] = yield* embedder.embed(["International roaming in Canada"])
      assert.strictEqual((fake.requests()[0].body as { readonly dimensions: number }).dimensions, 256)
      assert.strictEqual(v.length, 256)
      assert.closeTo(norm(v), 1, 1e-9)
      // Shortened like the text-embedding-3 models: the full vector's first values, renormalised.
      const full = fake.vectorOf("International roaming in Canada", "text-embedding-3-large")
      const prefixNorm = norm(full.slice(0, 256))
      assert.deepStrictEqual(v.map((x) => x.toFixed(12)), full.slice(0, 256).map((x) => (x / prefixNorm).toFixed(12)))

      // A server that ignores dimensions and answers its full length is caught.
      const ignoring = yield* embedderFor(fake, { model: "text-embedding-3-large", dimensions: 256 })
      fake.fault({
        _tag: "Respond",
        status: 200,
        body: {
          object: "list",
          data: [{ object: "embedding", index: 0, embedding: full }],
          model: "text-embedding-3-large"
        }
      })
      const error = yield* failure(ignoring.embed(["x"]))
      assert.isFalse(error.retryable)
      assert.include(error.message, "embedding 0 has 3072 dimensions, expected 256")
    }))

  it.scoped("puts a question closer to its passage than to an unrelated one", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake)
      const [question, passage, unrelated] = yield* embedder.embed([
        "How much does roaming cost in Mexico?",
        "Roaming in Mexico costs $5 a day and includes your plan's data, talk and text.",
        "To reset your voicemail PIN, dial *86 and follow the prompts."
      ])
      const related = cosineSimilarity(question, passage)
      const other = cosineSimilarity(question, unrelated)
      assert.isAbove(related, other + 0.2)
      assert.isAbove(related, 0.3)

      const otherModel = yield* makeFakeEmbeddings({ models: [{ name: "local-model", dimensions: 1536 }] })
      const passageText = "Roaming in Mexico costs $5 a day and includes your plan's data, talk and text."
      const across = cosineSimilarity(fake.vectorOf(passageText), otherModel.vectorOf(passageText))
      // The same text through another model: random signs leave only noise (-0.11 here), below even the related pair
      // (0.46).
      assert.isBelow(Math.abs(across), 0.2)
      assert.isBelow(Math.abs(across), related)
    }))
})

describe("OpenAiEmbedder, on the real clock", () => {
  it.scopedLive("gives up on a hung request after timeoutMillis, retryably", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const embedder = yield* embedderFor(fake, { timeoutMillis: 200 })
      fake.fault({ _tag: "Hang" })
      const started = Date.now()
      const timeout = yield* failure(embedder.embed(["x"]))
      const elapsed = Date.now() - started
      assert.isTrue(timeout.retryable)
      assert.strictEqual(timeout.message, `Embeddings API at ${new URL(fake.url).host} timed out after 0.2 s`)
      assert.isAtLeast(elapsed, 190)
      assert.isBelow(elapsed, 5_000)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scopedLive("a slowed-down fake slows every request (delayMillis, setDelay)", () =>
    Effect.gen(function*() {
      // two requests of 400 ms each, then two undelayed ones: the bound between them leaves a loaded
      // machine most of a second for two loopback round trips
      const fake = yield* withFake({ delayMillis: 400 })
      const embedder = yield* embedderFor(fake, { batchSize: 1 })
      let started = Date.now()
      yield* embedder.embed(["a", "b"])
      assert.isAtLeast(Date.now() - started, 790)
      fake.setDelay(0)
      started = Date.now()
      yield* embedder.embed(["a", "b"])
      assert.isBelow(Date.now() - started, 780)
      fake.setDelay(1_000)
      const short = yield* embedderFor(fake, { timeoutMillis: 100 })
      assert.isTrue((yield* failure(short.embed(["a"]))).retryable)
      assert.strictEqual(fake.inputsEmbedded(), 4)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
