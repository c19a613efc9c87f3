/**
 * What every request to a service must be before a handler sees it, whatever the route:
 *
 * - a body in the media type its route reads: JSON (`application/json` or `+json`, UTF-8), a
 *   multipart upload with a boundary, or a form for the carriers' callbacks; anything else is
 *   `415 UNSUPPORTED_MEDIA_TYPE`; a request without a body that names a media type is held to the same;
 * - a JSON body that nests at most `JSON_BODY_MAX_DEPTH` deep and parses (`400 INVALID_BODY`);
 * - strings (body, query, path) PostgreSQL can store, numbers that are finite
 *   (`400 VALIDATION_FAILED` naming each field).
 *
 * The JSON body is read and checked here once; the handler's own reads (`json`, `text`) get what was
 * read. A refused request runs no handler, so nothing is written.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { formatIssuePath } from "@voiceagent/domain/ApiError"
import { JSON_BODY_MAX_DEPTH, type JsonProblem, readJsonText, unstorable } from "@voiceagent/domain/Json"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Duplex, Readable } from "node:stream"
import { errorResponse, hasBody, pathOf } from "./RequestContext.js"
import { type BodyKind, matchRoute, type RouteTemplate } from "./Routes.js"

export interface MediaType {
  /** `type/subtype`, lower case */
  readonly essence: string
  readonly parameters: Readonly<Record<string, string>>
}

/** A `Content-Type` value (RFC 9110 §8.3.1), or undefined when it is not one. */
export const parseMediaType = (value: string | undefined): MediaType | undefined => {
  if (value === undefined) return undefined
  const [head, ...rest] = value.split(";")
  const essence = head!.trim().toLowerCase()
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(essence)) return undefined
  const parameters: Record<string, string> = {}
  for (const parameter of rest) {
    const eq = parameter.indexOf("=")
    if (eq === -1) continue
    const name = parameter.slice(0, eq).trim().toLowerCase()
    let v = parameter.slice(eq + 1).trim()
    if (v.startsWith("\"") && v.endsWith("\"") && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, "$1")
    if (name !== "" && !(name in parameters)) parameters[name] = v
  }
  return { essence, parameters }
}

const isJson = (type: MediaType) =>
  type.essence === "application/json" || /^application\/[^/]+\+json$/.test(type.essence)

/** RFC 2046 §5.1.1: 1 to 70 characters of its set, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/

export const EXPECTED_MEDIA_TYPES: Record<BodyKind, string> = {
  json: "application/json",
  "signed-json": "application/json",
  multipart: "multipart/form-data",
  form: "application/x-www-form-urlencoded"
}

const unsupportedMediaType = (kind: BodyKind, received: string | undefined) =>
  errorResponse(
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    received === undefined
      ? `A request body needs a Content-Type: this route reads ${EXPECTED_MEDIA_TYPES[kind]}`
      : `This route reads ${EXPECTED_MEDIA_TYPES[kind]}${kind === "json" ? " (UTF-8)" : ""}, not ${received}`,
    { expected: EXPECTED_MEDIA_TYPES[kind], ...(received === undefined ? {} : { received }) }
  )

const invalidBody = (message: string, details?: unknown) => errorResponse(400, "INVALID_BODY", message, details)

const validationFailed = (problems: ReadonlyArray<{ readonly path: string; readonly message: string }>) =>
  errorResponse(
    400,
    "VALIDATION_FAILED",
    `Invalid request: ${problems[0]!.path === "" ? "" : `${problems[0]!.path}: `}${problems[0]!.message}`,
    problems
  )

const issues = (prefix: string, problems: ReadonlyArray<JsonProblem>) =>
  problems.map((p) => ({ path: formatIssuePath([...(prefix === "" ? [] : [prefix]), ...p.path]), message: p.message }))

/** Printable ASCII without `%`: nothing in it decodes, so nothing in it is unstorable (most URLs). */
const PLAIN_URL = /^[\x20-\x24\x26-\x7e]*$/

/** Strings in the path and the query string that cannot be stored, as issues. */
const urlProblems = (url: string): ReadonlyArray<{ readonly path: string; readonly message: string }> | "malformed" => {
  if (PLAIN_URL.test(url)) return []
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  const found: Array<{ path: string; message: string }> = []
  for (const segment of path.split("/")) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      return "malformed"
    }
    const why = unstorable(decoded)
    if (why !== undefined) {
      found.push({ path: "path", message: `a path segment ${why.replace("must not contain", "contains")}` })
    }
  }
  if (q !== -1) {
    for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
      const why = unstorable(name) ?? unstorable(value)
      if (why !== undefined) found.push({ path: `query.${name.replace(/[^\x20-\x7e]/g, "?")}`, message: why })
    }
  }
  return found
}

/**
 * The request, with the body already read: the handler's reads answer from it. (The platform caches
 * a body per request object, but the router may hand handlers a copy; this covers every read.)
 */
const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  bytes: Uint8Array,
  text: string,
  json: unknown,
  asJson: boolean
): HttpServerRequest.HttpServerRequest =>
  Object.create(request, {
    text: { get: () => Effect.succeed(text) },
    json: { get: () => Effect.succeed(json) },
    arrayBuffer: {
      get: () =>
        Effect.succeed(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
    },
    // parsed from what was read: the original request's own read would wait on a stream already consumed
    urlParamsBody: { get: () => Effect.succeed(UrlParams.fromInput(new URLSearchParams(text))) },
    stream: { get: () => Stream.succeed(bytes) },
    // `+json` types are JSON too; the platform's payload decoding only recognises application/json
    ...(asJson ? { headers: { value: { ...request.headers, "content-type": "application/json" } } } : {})
  })

/**
 * Gaps in multipart parsing (multipasta under `@effect/platform-node`), closed here where the body
 * is piped into the parser. Two left an upload waiting forever:
 *
 * - multipasta ends its part stream only at the closing boundary: a body that ends before it
 *   without being inside a part (12 bytes, no delimiter at all) never ended it. When the parser has
 *   had the whole body and has not ended its parts, it is failed.
 * - a failure inside a file part (a body cut off mid-file) is emitted on the file's stream before
 *   anyone reads it, and a stream that only emitted an error never ends for a later reader. Unread
 *   files are destroyed with the error instead, which every reader sees.
 *
 * Three answered 500, or worse:
 *
 * - a part whose headers do not end (no blank line) before the next boundary was emitted as a
 *   field without headers, which the platform dereferences: a `TypeError`. The parser is failed
 *   instead.
 * - a `filename*` that is not valid percent-encoded UTF-8 (`filename*=UTF-8''a%ZZ.txt`) made
 *   multipasta's `decodeURIComponent` throw inside the stream's write, out of every handler: an
 *   uncaught exception in the process. A throw from the parser fails it.
 * - a `filename*` that decodes to a NUL (`a%00b.txt`) failed writing the file to disk; a name
 *   PostgreSQL cannot store (see `unstorable`) fails the parser before the file is read.
 *
 * All surface as multipart errors, answered `400 INVALID_MULTIPART` by the request context.
 */
export class MultipartTruncated extends Error {
  readonly _tag = "MultipartTruncated"
  constructor() {
    super("The multipart body ended before its closing boundary")
  }
}

export class MultipartPartHeadersUnended extends Error {
  readonly _tag = "MultipartPartHeadersUnended"
  constructor() {
    super("A part's headers did not end before the next boundary")
  }
}

export class MultipartPartHeadersInvalid extends Error {
  readonly _tag = "MultipartPartHeadersInvalid"
  constructor(reason: string) {
    super(`A part's headers are not valid: ${reason}`)
  }
}

const closeMultipartGaps = (request: HttpServerRequest.HttpServerRequest) => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  const pipe = incoming.pipe
  incoming.pipe = function<T extends NodeJS.WritableStream>(
    this: typeof incoming,
    destination: T,
    options?: { end?: boolean }
  ) {
    const parser = destination as unknown as Duplex
    const files = new Set<Readable>()
    const failFiles = (error: unknown) => {
      for (const file of files) {
        // a listener, so the error is not thrown at the process while nobody reads the file yet
        file.on("error", () => {})
        if (!file.destroyed) file.destroy(error as Error)
      }
      files.clear()
    }
    parser.on("file", (file: Readable) => files.add(file))
    const push = parser.push
    const fail = (error: Error) => {
      failFiles(error)
      parser.destroy(error)
    }
    parser.push = function(this: Duplex, part: unknown, encoding?: BufferEncoding) {
      const { _tag, info } = (part ?? {}) as { _tag?: string; info?: { filename?: unknown } }
      if (_tag === "Field" && info === undefined) {
        fail(new MultipartPartHeadersUnended())
        return false
      }
      const why = _tag === "File" && typeof info?.filename === "string" ? unstorable(info.filename) : undefined
      if (why !== undefined) {
        fail(new MultipartPartHeadersInvalid(`the file name ${why.replace("must not contain", "contains")}`))
        return false
      }
      return push.call(this, part, encoding)
    }
    // the parser runs inside the stream's write: what it throws would escape every handler
    const guard = <A extends Array<unknown>>(method: (...args: A) => void) =>
      function(this: Duplex, ...args: A) {
        try {
          method.apply(this, args)
        } catch (error) {
          const failure = new MultipartPartHeadersInvalid(error instanceof Error ? error.message : String(error))
          const callback = args[args.length - 1]
          failFiles(failure)
          if (typeof callback === "function") callback(failure)
          else parser.destroy(failure)
        }
      }
    const writable = parser as unknown as {
      _write: (chunk: unknown, encoding: BufferEncoding, callback: (error?: Error | null) => void) => void
      _final: (callback: (error?: Error | null) => void) => void
    }
    writable._write = guard(writable._write)
    writable._final = guard(writable._final)
    parser.on("error", failFiles)
    parser.once("finish", () => {
      if (parser.destroyed || (parser as unknown as { _readableState: { ended: boolean } })._readableState.ended) return
      const error = new MultipartTruncated()
      failFiles(error)
      parser.destroy(error)
    })
    return pipe.call(this, destination, options) as T
  } as typeof incoming.pipe
}

const readJson = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const bytes = new Uint8Array(yield* request.arrayBuffer)
    let text: string
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes)
    } catch {
      return { refused: yield* invalidBody("The request body is not valid UTF-8") } as const
    }
    const read = readJsonText(text === "" ? "null" : text)
    switch (read._tag) {
      case "TooDeep":
        return {
          refused: yield* invalidBody(
            `The JSON body nests deeper than ${JSON_BODY_MAX_DEPTH} levels of objects and arrays`,
            {
              maxDepth: JSON_BODY_MAX_DEPTH
            }
          )
        } as const
      case "NotJson":
        return { refused: yield* invalidBody("The request body could not be parsed (expected valid JSON)") } as const
      case "Unstorable":
        return { refused: yield* validationFailed(issues("", read.problems)) } as const
    }
    const json = read.value
    return { request: withBody(request, bytes, text, json, true) } as const
  })

const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const bytes = new Uint8Array(yield* request.arrayBuffer)
    const text = new TextDecoder().decode(bytes)
    const problems: Array<{ path: string; message: string }> = []
    for (const [name, value] of new URLSearchParams(text)) {
      const why = unstorable(name) ?? unstorable(value)
      if (why !== undefined) problems.push({ path: name.replace(/[^\x20-\x7e]/g, "?"), message: why })
    }
    if (problems.length > 0) return { refused: yield* validationFailed(problems) } as const
    return { request: withBody(request, bytes, text, null, false) } as const
  })

/** Applies the rules above to every request of a service whose endpoints are `routes`. */
export const withRequestRules = (routes: ReadonlyArray<RouteTemplate>) =>
<E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<E | HttpServerError.RequestError, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const inUrl = urlProblems(request.url)
    if (inUrl === "malformed") {
      return errorResponse(400, "VALIDATION_FAILED", "The request path is not validly percent-encoded")
    }
    if (inUrl.length > 0) return validationFailed(inUrl)
    if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return app
    const received = request.headers["content-type"]
    const bodied = hasBody(request.headers)
    // no body and no media type: nothing to check. No body with a media type: the API's decoding still
    // goes by that type (a multipart one without a boundary failed in the parser, a 500), so it is held
    // to the route's as a body's would be, and nothing is read
    if (!bodied && received === undefined) return app
    const route = matchRoute(routes, request.method, pathOf(request))
    if (route === undefined) return app
    const type = parseMediaType(received)
    const proceed = (
      read: Effect.Effect<
        { readonly refused: HttpServerResponse.HttpServerResponse } | {
          readonly request: HttpServerRequest.HttpServerRequest
        },
        HttpServerError.RequestError
      >
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E | HttpServerError.RequestError, R> =>
      Effect.flatMap(
        read,
        (outcome) =>
          "refused" in outcome
            ? Effect.succeed(outcome.refused)
            : Effect.provideService(app, HttpServerRequest.HttpServerRequest, outcome.request)
      )
    const jsonType = type !== undefined && isJson(type) &&
      ["utf-8", "utf8", undefined].includes(type.parameters["charset"]?.toLowerCase())
    switch (route.body) {
      case "json": {
        if (!jsonType) return unsupportedMediaType("json", received)
        return bodied ? proceed(readJson(request)) : app
      }
      case "signed-json": {
        // the handler authenticates the raw bytes first, then reads them with the same rules (readJsonText)
        if (!jsonType) return unsupportedMediaType("signed-json", received)
        return app
      }
      case "form": {
        if (type?.essence !== "application/x-www-form-urlencoded") return unsupportedMediaType("form", received)
        return bodied ? proceed(readForm(request)) : app
      }
      case "multipart": {
        if (type?.essence !== "multipart/form-data") return unsupportedMediaType("multipart", received)
        const boundary = type.parameters["boundary"]
        if (boundary === undefined || !BOUNDARY.test(boundary)) {
          return errorResponse(
            400,
            "INVALID_MULTIPART",
            boundary === undefined
              ? "multipart/form-data needs a boundary parameter"
              : "The multipart boundary is not valid (RFC 2046: 1 to 70 characters, not ending in a space)"
          )
        }
        if (bodied) closeMultipartGaps(request)
        return app
      }
    }
  }) as HttpApp.Default<E | HttpServerError.RequestError, R>
