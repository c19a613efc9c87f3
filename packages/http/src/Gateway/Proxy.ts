/**
 * The reverse proxy: streams the request body to the owning service and its response back,
 * keeping method, status and end-to-end headers. Hop-by-hop headers (RFC 9110 §7.6.1) stop here.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { CurrentRequestId } from "@voiceagent/domain/ApiError"
import { gatewayRouteNotFoundMessage, routeFor } from "@voiceagent/domain/Gateway"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { declaredLength, errorResponse, hasBody, pathOf, payloadTooLarge, REQUEST_ID_HEADER } from "../RequestContext.js"
import { ServiceDirectory } from "../ServiceDirectory.js"

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

const endToEnd = (headers: Headers.Headers): Record<string, string> => {
  const listed = new Set(
    (headers["connection"] ?? "").split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "")
  )
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && !listed.has(name)) out[name] = value
  }
  return out
}

/** The largest request body the proxy forwards (set per route by the gateway's protection). */
export class RequestBodyLimit extends Context.Reference<RequestBodyLimit>()("@voiceagent/http/Gateway/RequestBodyLimit", {
  defaultValue: () => Number.POSITIVE_INFINITY
}) {}

class BodyTooLarge {
  readonly _tag = "BodyTooLarge"
}

/**
 * A body without a declared length, counted as it streams: past `limit` the stream fails, which
 * aborts the upstream request. The incoming message is then left open (not destroyed, as the
 * platform's own stream would) so the 413 still reaches the client; otherwise it is closed as usual.
 */
const countedBody = (request: HttpServerRequest.HttpServerRequest, limit: number, exceeded: () => void) => {
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  let seen = 0
  return NodeStream.fromReadable<unknown, Uint8Array>(() => incoming, (e) => e, { closeOnDone: false }).pipe(
    Stream.mapChunksEffect((chunk) => {
      seen += Chunk.reduce(chunk, 0, (n, bytes) => n + bytes.length)
      if (seen <= limit) return Effect.succeed(chunk)
      exceeded()
      return Effect.fail(new BodyTooLarge())
    }),
    Stream.ensuring(Effect.sync(() => {
      if (seen <= limit && !incoming.complete) incoming.destroy()
    }))
  )
}

export const proxy = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const path = pathOf(request)
  const route = routeFor(path)
  if (route === undefined) {
    return yield* errorResponse(404, "GATEWAY_ROUTE_NOT_FOUND", gatewayRouteNotFoundMessage(path))
  }
  const directory = yield* ServiceDirectory
  const base = yield* directory.lookup(route.service)
  if (Option.isNone(base)) {
    return yield* errorResponse(502, "UPSTREAM_UNAVAILABLE", `The ${route.service} service is not available`)
  }

  const client = yield* HttpClient.HttpClient
  const requestId = yield* FiberRef.get(CurrentRequestId)
  const remote = Option.getOrElse(request.remoteAddress, () => "")
  const forwardedFor = request.headers["x-forwarded-for"]
  const headers = {
    ...endToEnd(request.headers),
    [REQUEST_ID_HEADER]: requestId,
    "x-forwarded-for": forwardedFor === undefined ? remote : `${forwardedFor}, ${remote}`,
    "x-forwarded-host": request.headers["host"] ?? "",
    "x-forwarded-proto": request.headers["x-forwarded-proto"] ?? "http"
  }
  const length = declaredLength(request.headers)
  // a declared length is checked against the limit before the proxy, and node's parser holds the body to it
  const limit = yield* RequestBodyLimit
  let exceeded = false
  const body = hasBody(request.headers)
    ? HttpBody.stream(
      length === undefined && Number.isFinite(limit)
        ? countedBody(request, limit, () => (exceeded = true))
        : request.stream,
      request.headers["content-type"] ?? "application/octet-stream",
      length
    )
    : HttpBody.empty

  const upstream = yield* client.execute(
    HttpClientRequest.make(request.method as "GET")(`${base.value}${request.url}`, { headers }).pipe(
      HttpClientRequest.setBody(body)
    )
  ).pipe(Effect.option)
  if (exceeded) return yield* payloadTooLarge(limit)
  if (Option.isNone(upstream)) {
    return yield* errorResponse(502, "UPSTREAM_UNAVAILABLE", `The ${route.service} service is not reachable`)
  }
  const response = upstream.value
  const responseLength = declaredLength(response.headers)
  const responseHeaders = endToEnd(response.headers)
  delete responseHeaders[REQUEST_ID_HEADER]
  const contentType = responseHeaders["content-type"]
  delete responseHeaders["content-type"]
  if (response.status === 204 || response.status === 304 || request.method === "HEAD") {
    return HttpServerResponse.empty({ status: response.status, headers: Headers.fromInput(responseHeaders) })
  }
  return HttpServerResponse.stream(response.stream, {
    status: response.status,
    headers: Headers.fromInput(responseHeaders),
    ...(contentType === undefined ? {} : { contentType }),
    ...(responseLength === undefined ? {} : { contentLength: responseLength })
  })
})
