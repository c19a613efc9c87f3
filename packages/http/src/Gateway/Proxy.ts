/**
 * The reverse proxy: streams the request body to the owning service and its response back,
 * keeping method, status and end-to-end headers. Hop-by-hop headers (RFC 9110 §7.6.1) stop here.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Headers from "@effect/platform/Headers"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { CurrentRequestId } from "@voiceagent/domain/ApiError"
import { gatewayRouteNotFoundMessage, routeFor } from "@voiceagent/domain/Gateway"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as http from "node:http"
import {
  declaredLength,
  errorResponse,
  hasBody,
  pathOf,
  payloadTooLarge,
  REQUEST_ID_HEADER
} from "../RequestContext.js"
import { clientIdleTimeout, HttpTimeouts } from "../Serve.js"
import { type LocalService, ServiceDirectory } from "../ServiceDirectory.js"

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length"
])

/** The headers `Connection` names: hop-by-hop too. */
const listedIn = (headers: Headers.Headers): ReadonlySet<string> | undefined => {
  const connection = headers["connection"]
  return connection === undefined ? undefined : new Set(connection.split(",").map((h) => h.trim().toLowerCase()))
}

// Built in one pass, without object spreads or deletes: each cost microseconds on every proxied request.
const endToEnd = (headers: Headers.Headers): Record<string, string> => {
  const listed = listedIn(headers)
  const out: Record<string, string> = {}
  for (const name in headers) {
    if (!HOP_BY_HOP.has(name) && !(listed !== undefined && listed.has(name))) out[name] = headers[name]!
  }
  return out
}

/** The largest request body the proxy forwards (set per route by the gateway's protection). */
export class RequestBodyLimit
  extends Context.Reference<RequestBodyLimit>()("@voiceagent/http/Gateway/RequestBodyLimit", {
    defaultValue: () => Number.POSITIVE_INFINITY
  })
{}

/**
 * The keep-alive connections from the gateway to the services, each closed by the gateway once it
 * has been idle for a little less than the services' keep-alive timeout (`clientIdleTimeout`), so a
 * request is never sent on a connection the service is closing. (The agent's `timeout` is the
 * sockets' idle timeout: node destroys a free socket when it fires, and only emits `timeout` on a
 * request in flight, which nothing here listens to.)
 */
export class UpstreamAgent extends Context.Tag("@voiceagent/http/Gateway/UpstreamAgent")<UpstreamAgent, http.Agent>() {
  static readonly layer = Layer.scoped(
    UpstreamAgent,
    Effect.flatMap(HttpTimeouts, (timeouts) =>
      Effect.acquireRelease(
        Effect.sync(() =>
          new http.Agent({ keepAlive: true, scheduling: "lifo", timeout: clientIdleTimeout(timeouts.keepAlive) })
        ),
        (agent) => Effect.sync(() => agent.destroy())
      ))
  )
}

/**
 * Whether a failed exchange may be sent again: it failed on a kept-alive connection the service
 * had closed (the race the idle timeout above narrows: a service in another process, a late
 * timer), the request has no body, and its method is idempotent (RFC 9110 §9.2.2), so sending it
 * twice is harmless even had the service seen it.
 */
const replayable = (outcome: Exchange, method: string, withBody: boolean): boolean =>
  outcome._tag === "Unreachable" && outcome.reusedSocket && !withBody && IDEMPOTENT.has(method) &&
  ["ECONNRESET", "EPIPE"].includes((outcome.cause as NodeJS.ErrnoException | undefined)?.code ?? "")

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"])

type Exchange =
  | { readonly _tag: "Answered"; readonly response: http.IncomingMessage }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Unreachable"; readonly cause: unknown; readonly reusedSocket: boolean }

/**
 * One request to a service, its body streamed from the client's. The exchange ends when the
 * service answers, even before the body is all sent: a service may refuse a request (no
 * credentials, a bad id) without reading its body, and the client must get that answer as a
 * direct request would. The rest of the client's body is then not forwarded; node reads and drops
 * it once the answer is sent, so the client is not reset mid-upload. (`HttpClient` waits for the
 * whole body to be sent before it gives the answer, and the upload's end never came.)
 *
 * A body without a declared length is counted as it streams: past `limit` the upstream request is
 * aborted and the client's request is left open, so the 413 still reaches the client.
 */
const exchange = (
  agent: http.Agent,
  url: string,
  method: string,
  headers: Record<string, string>,
  incoming: http.IncomingMessage | undefined,
  limit: number
) =>
  Effect.async<Exchange>((resume) => {
    let settled = false
    let bodySent = incoming === undefined
    const settle = (outcome: Exchange) => {
      if (settled) return
      settled = true
      if (incoming !== undefined && !bodySent) incoming.unpipe(upstream)
      resume(Effect.succeed(outcome))
    }
    const upstream = http.request(url, { agent, method, headers })
    upstream.on("response", (response) => {
      // a request whose body was cut short cannot share its connection with the next one
      if (!bodySent) response.once("end", () => upstream.destroy())
      settle({ _tag: "Answered", response })
    })
    upstream.on("error", (cause) => settle({ _tag: "Unreachable", cause, reusedSocket: upstream.reusedSocket }))
    upstream.on("finish", () => (bodySent = true))
    if (incoming === undefined) {
      upstream.end()
    } else {
      if (Number.isFinite(limit)) {
        let seen = 0
        incoming.on("data", (chunk: Buffer) => {
          seen += chunk.length
          if (seen > limit && !settled) {
            settle({ _tag: "TooLarge" })
            upstream.destroy()
          }
        })
      }
      incoming.once("aborted", () => upstream.destroy())
      incoming.pipe(upstream)
    }
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        upstream.destroy()
      }
    })
  })

/**
 * `exchange` in a client span, whose context the service continues (the `traceparent` header),
 * as `HttpClient` would do; no span when tracing is off.
 */
const tracedExchange = (...args: Parameters<typeof exchange>) =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) => {
    if (!enabled) return exchange(...args)
    const [agent, url, method, headers, incoming, limit] = args
    return Effect.useSpan(`http.client ${method}`, { kind: "client", captureStackTrace: false }, (span) => {
      span.attribute("http.request.method", method)
      span.attribute("url.full", url)
      return exchange(agent, url, method, { ...headers, ...HttpTraceContext.toHeaders(span) }, incoming, limit).pipe(
        Effect.tap((outcome) => {
          if (outcome._tag === "Answered") span.attribute("http.response.status_code", outcome.response.statusCode ?? 0)
        }),
        Effect.withParentSpan(span)
      )
    })
  })

/** What a service's answer becomes at the client: end-to-end headers only; the gateway's request id. */
const answerHeaders = (headers: Headers.Headers) => {
  const listed = listedIn(headers)
  const kept: Record<string, string> = {}
  let contentType: string | undefined = undefined
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || (listed !== undefined && listed.has(name)) || name === REQUEST_ID_HEADER) continue
    if (name === "content-type") contentType = headers[name]
    else kept[name] = headers[name]!
  }
  return { headers: kept, contentType }
}

const JSON_TYPE = /^\s*application\/(?:[^\s;/]+\+)?json\s*(?:;|$)/i

const bodiless = (status: number, method: string) => status === 204 || status === 304 || method === "HEAD"

/**
 * A service in this process (the `start` role) is handed a request directly: its app runs in this
 * fiber, with its own server's context, the request as the proxy would have sent it, and this
 * request's scope (a streamed answer is written before it closes). Its answer is then treated as one
 * that came over a socket. Only requests without a body, or with a JSON body of a declared length
 * (already held to the route's limit, and read whole by the service's request rules or not at
 * all), go this way; uploads and chunked bodies keep the socket, which counts them against the
 * limit as they stream and stops forwarding them on an early answer. All requests keep it when
 * tracing is on, so a trace keeps its client and server spans.
 */
const dispatchLocal = (
  local: LocalService,
  request: HttpServerRequest.HttpServerRequest,
  headers: Record<string, string>
) =>
  Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse>((fiber) => {
    const scope = Context.unsafeGet(fiber.currentContext, Scope.Scope)
    const context = Context.merge(
      local.context,
      Context.make(HttpServerRequest.HttpServerRequest, request.modify({ headers: Headers.fromInput(headers) })).pipe(
        Context.add(Scope.Scope, scope)
      )
    )
    return Effect.locally(
      local.app as Effect.Effect<HttpServerResponse.HttpServerResponse>,
      FiberRef.currentContext,
      context
    )
  }).pipe(Effect.map((response) => {
    const { contentType, headers: kept } = answerHeaders(response.headers)
    if (bodiless(response.status, request.method)) {
      return HttpServerResponse.empty({ status: response.status, headers: kept })
    }
    const answer = HttpServerResponse.setBody(
      HttpServerResponse.empty({ status: response.status, headers: kept }),
      response.body
    )
    // the body's own type is usually the header's already
    return contentType === undefined || answer.headers["content-type"] === contentType
      ? answer
      : HttpServerResponse.setHeader(answer, "content-type", contentType)
  }))

/** The proxy, with the directory and the connections to the services it uses for every request. */
export const makeProxy = Effect.gen(function*() {
  const directory = yield* ServiceDirectory
  const agent = yield* UpstreamAgent
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = pathOf(request)
    const route = routeFor(path)
    if (route === undefined) {
      return yield* errorResponse(404, "GATEWAY_ROUTE_NOT_FOUND", gatewayRouteNotFoundMessage(path))
    }
    const base = yield* directory.lookup(route.service)
    if (Option.isNone(base)) {
      return yield* errorResponse(502, "UPSTREAM_UNAVAILABLE", `The ${route.service} service is not available`)
    }

    const requestId = yield* FiberRef.get(CurrentRequestId)
    const remote = Option.getOrElse(request.remoteAddress, () => "")
    const forwardedFor = request.headers["x-forwarded-for"]
    const length = declaredLength(request.headers)
    const withBody = hasBody(request.headers)
    const headers = endToEnd(request.headers)
    headers[REQUEST_ID_HEADER] = requestId
    headers["x-forwarded-for"] = forwardedFor === undefined ? remote : `${forwardedFor}, ${remote}`
    headers["x-forwarded-host"] = request.headers["host"] ?? ""
    headers["x-forwarded-proto"] = request.headers["x-forwarded-proto"] ?? "http"
    if (withBody) {
      if (length === undefined) headers["transfer-encoding"] = "chunked"
      else headers["content-length"] = String(length)
    }
    const local = withBody && !(length !== undefined && JSON_TYPE.test(request.headers["content-type"] ?? ""))
      ? undefined
      : directory.local(route.service)
    if (local !== undefined && !(yield* FiberRef.get(FiberRef.currentTracerEnabled))) {
      headers["host"] = hostOf(base.value)
      return yield* dispatchLocal(local, request, headers)
    }
    // a declared length is checked against the limit before the proxy, and node's parser holds the body to it
    const limit = yield* RequestBodyLimit
    const send = tracedExchange(
      agent,
      `${base.value}${request.url}`,
      request.method,
      headers,
      withBody ? NodeHttpServerRequest.toIncomingMessage(request) : undefined,
      length === undefined ? limit : Number.POSITIVE_INFINITY
    )
    const first = yield* send
    const outcome = replayable(first, request.method, withBody) ? yield* send : first
    if (outcome._tag === "TooLarge") return yield* payloadTooLarge(limit)
    if (outcome._tag === "Unreachable") {
      yield* Effect.logWarning(`gateway: the ${route.service} service is not reachable`).pipe(
        Effect.annotateLogs({ upstream: base.value, cause: String(outcome.cause), replayed: outcome !== first })
      )
      return yield* errorResponse(502, "UPSTREAM_UNAVAILABLE", `The ${route.service} service is not reachable`)
    }
    const response = outcome.response
    const upstreamHeaders = Headers.fromInput(response.headers as Record<string, string | ReadonlyArray<string>>)
    const responseLength = declaredLength(upstreamHeaders)
    const { contentType, headers: responseHeaders } = answerHeaders(upstreamHeaders)
    const status = response.statusCode ?? 502
    if (bodiless(status, request.method)) {
      response.resume()
      return HttpServerResponse.empty({ status, headers: responseHeaders })
    }
    // node pipes the service's answer to the client's (the platform's raw body); no stream of chunks in between
    return HttpServerResponse.raw(response, {
      status,
      headers: responseHeaders,
      ...(contentType === undefined ? {} : { contentType }),
      ...(responseLength === undefined ? {} : { contentLength: responseLength })
    })
  })
})

const hosts = new Map<string, string>()

/** The `Host` a request to `base` carries (what node's client sends). */
const hostOf = (base: string): string => {
  let host = hosts.get(base)
  if (host === undefined) {
    host = new URL(base).host
    hosts.set(base, host)
  }
  return host
}
