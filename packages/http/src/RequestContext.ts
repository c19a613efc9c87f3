/**
 * Wraps every service's (and the gateway's) HTTP app: assigns the request id, annotates every log
 * line of the request with it, writes one access-log line, and turns anything the API layer did not
 * answer (unknown routes, unreadable bodies, defects) into the standard error body.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentRequestId, type ErrorBody, InternalError } from "@voiceagent/domain/ApiError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as crypto from "node:crypto"
import { METRICS_PATH, metricsResponse, recordRequest } from "./Observability/Metrics.js"

export const REQUEST_ID_HEADER = "x-request-id"

const TRUSTED_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/

/** Reuses an incoming id (the gateway's, or a client's) when it is safe to log; otherwise makes one. */
export const requestIdFor = (incoming: string | undefined): string =>
  incoming !== undefined && TRUSTED_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()

/** A response in the standard error body, for errors raised outside the API schema. */
export const errorResponse = (
  status: number,
  code: string,
  message: string,
  details?: unknown
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(FiberRef.get(CurrentRequestId), (requestId) => {
    const body: ErrorBody = { error: { code, message, requestId, ...(details === undefined ? {} : { details }) } }
    return HttpServerResponse.unsafeJson(body, { status })
  })

const isTagged = <T extends string>(u: unknown, tag: T): u is { readonly _tag: T } =>
  Predicate.hasProperty(u, "_tag") && u._tag === tag

/** A message's headers: the platform's `Headers`, or node's `IncomingHttpHeaders`. */
export interface MessageHeaders {
  readonly [name: string]: string | ReadonlyArray<string> | undefined
}

/** A message's `content-length`, when it is a valid one. */
export const declaredLength = (headers: MessageHeaders): number | undefined => {
  const raw = headers["content-length"]
  const n = raw === undefined ? NaN : Number(raw)
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** Whether a request carries a body: a declared length above 0, or a chunked one. */
export const hasBody = (headers: MessageHeaders): boolean => {
  const length = declaredLength(headers)
  return length !== undefined ? length > 0 : headers["transfer-encoding"] !== undefined
}

export const pathOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const q = request.url.indexOf("?")
  return q === -1 ? request.url : request.url.slice(0, q)
}

const reachedLimit = (cause: unknown): boolean =>
  Predicate.isObject(cause) &&
  ((cause as { _tag?: unknown })._tag === "ReachedLimit" ||
    String((cause as { message?: unknown }).message ?? "").includes("ReachedLimit"))

/** multipasta's own failures, and the truncation `RequestRules` detects: the body is malformed. */
const MALFORMED_MULTIPART = new Set([
  "EndNotReached",
  "BadHeaders",
  "InvalidDisposition",
  "InvalidBoundary",
  "MultipartTruncated",
  "MultipartPartHeadersUnended",
  "MultipartPartHeadersInvalid"
])

const malformedMultipart = (cause: unknown): boolean =>
  Predicate.hasProperty(cause, "_tag") && MALFORMED_MULTIPART.has(String(cause._tag))

const answerFor = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && isTagged(failure.value, "RouteNotFound")) {
    return errorResponse(404, "ROUTE_NOT_FOUND", `No route for ${request.method} ${pathOf(request)}`)
  }
  const problems = [...Cause.failures(cause), ...Cause.defects(cause)]
  const multipart = problems.find((e): e is { _tag: "MultipartError"; reason: string; cause: unknown } =>
    isTagged(e, "MultipartError")
  )
  // A file over its size limit surfaces as "InternalError" wrapping multipasta's ReachedLimit.
  const overLimit = multipart?.reason === "InternalError" && reachedLimit(multipart.cause)
  const malformed = multipart?.reason === "InternalError" && malformedMultipart(multipart.cause)
  if (multipart !== undefined && (multipart.reason !== "InternalError" || overLimit || malformed)) {
    // The rest of the body may still be on its way: close the connection rather than reuse it.
    return (multipart.reason === "TooManyParts"
      ? errorResponse(400, "TOO_MANY_PARTS", "The multipart body has too many parts")
      : multipart.reason === "Parse" || malformed
      ? errorResponse(400, "INVALID_MULTIPART", "The multipart body could not be parsed")
      : errorResponse(413, "PAYLOAD_TOO_LARGE", "The upload is larger than allowed")).pipe(
        Effect.map(HttpServerResponse.setHeader("connection", "close"))
      )
  }
  const requestError = problems.find(
    (e): e is HttpServerError.RequestError => isTagged(e, "RequestError")
  )
  if (requestError !== undefined) {
    return errorResponse(
      400,
      "INVALID_BODY",
      requestError.reason === "Decode"
        ? "The request body could not be parsed (expected valid JSON)"
        : "The request body could not be read"
    )
  }
  return Effect.logError("Unhandled failure", cause).pipe(
    Effect.zipRight(errorResponse(500, "INTERNAL_ERROR", new InternalError().message))
  )
}

/**
 * `HttpServerResponse.setHeaders` for headers already in lower case, as every answer gets them: the
 * same response, built without `setHeaders`' object spread of the headers it has (8-9 µs an answer on
 * this 2-core machine under load, against ~2 µs this way). An empty body is left to `setHeaders`,
 * since `setBody` would drop its content type.
 */
export const withHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  response.body._tag === "Empty"
    ? HttpServerResponse.setHeaders(response, headers)
    : HttpServerResponse.setBody(
      HttpServerResponse.empty({
        status: response.status,
        ...(response.statusText === undefined ? {} : { statusText: response.statusText }),
        cookies: response.cookies,
        headers: Object.assign({}, response.headers, headers)
      }),
      response.body
    )

/**
 * On every answer: no MIME sniffing, never framed (clickjacking: `frame-ancestors` for today's
 * browsers, `x-frame-options` for older ones), no referrer leaked to links in the docs page.
 * Transport security (HSTS) belongs to the TLS-terminating proxy in front.
 */
export const securityHeaders = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
  "referrer-policy": "no-referrer"
} as const

/**
 * The largest body a service reads whole (JSON, forms, text): the largest any route documents, a
 * knowledge-base source. Multipart bodies are bounded by their routes' part limits instead. The
 * gateway holds each route to its own limit; this is the services' backstop behind it.
 */
export const MAX_READ_BODY_BYTES = 16 * 1024 * 1024

/** 413 for a body over `limit`; the connection is closed rather than the rest of the body read. */
export const payloadTooLarge = (limit: number) =>
  errorResponse(413, "PAYLOAD_TOO_LARGE", `The request body is larger than the ${limit} bytes this route accepts`, {
    limitBytes: limit
  }).pipe(Effect.map(HttpServerResponse.setHeader("connection", "close")))

const bodyTooLarge = payloadTooLarge(MAX_READ_BODY_BYTES)

const exceededMaxBodySize = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) =>
    isTagged(e, "RequestError") &&
    Predicate.hasProperty(e, "cause") && e.cause instanceof Error && e.cause.message === "maxBytes exceeded"
  )

/**
 * A declared length over the limit is answered 413 before anything is read. A body streamed past it
 * stops being read; the platform then drops the connection, so the 413 is only logged.
 */
const limitBody = (request: HttpServerRequest.HttpServerRequest) =>
<E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  // nothing to read: the limit would only cost a FiberRef and a cause handler per request
  if (!hasBody(request.headers)) return app
  if ((request.headers["content-type"] ?? "").toLowerCase().includes("multipart/")) return app
  if ((declaredLength(request.headers) ?? 0) > MAX_READ_BODY_BYTES) return bodyTooLarge
  return app.pipe(
    HttpServerRequest.withMaxBodySize(Option.some(MAX_READ_BODY_BYTES)),
    Effect.catchAllCause((cause) => exceededMaxBodySize(cause) ? bodyTooLarge : Effect.failCause(cause))
  )
}

export const withRequestContext = (service: string) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = requestIdFor(request.headers[REQUEST_ID_HEADER])
    const handled = Effect.gen(function*() {
      // the access line is at info: when the level filters it, neither its clock nor its annotations are read
      const logging = LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Info)
      const started = logging ? yield* Clock.currentTimeMillis : 0
      // the histogram wants sub-millisecond resolution; the log line keeps the Clock (TestClock in tests)
      const startedPrecise = performance.now()
      const path = pathOf(request)
      const serving = path === METRICS_PATH && request.method === "GET" ? metricsResponse : app
      const response = yield* serving.pipe(
        limitBody(request),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : answerFor(cause, request)
        )
      )
      if (logging) {
        yield* Effect.logInfo("request").pipe(
          Effect.annotateLogs({
            method: request.method,
            path,
            status: response.status,
            durationMs: (yield* Clock.currentTimeMillis) - started
          })
        )
      }
      yield* recordRequest(service, request.method, path, response.status, (performance.now() - startedPrecise) / 1000)
      return withHeaders(response, {
        [REQUEST_ID_HEADER]: requestId,
        ...securityHeaders,
        // answers carry credentials and account data: no shared cache may keep them
        ...(response.headers["cache-control"] === undefined && path.startsWith("/api/")
          ? { "cache-control": "no-store" }
          : {})
      })
    }).pipe(Effect.annotateLogs({ requestId, service }))
    // a service the gateway reaches in process already runs under the gateway's id, the same
    return Effect.flatMap(
      FiberRef.get(CurrentRequestId),
      (current) => current === requestId ? handled : Effect.locally(handled, CurrentRequestId, requestId)
    )
  }) as HttpApp.Default<never, R>
