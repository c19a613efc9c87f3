import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import type * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import type { ErrorBody } from "@voiceagent/domain/ApiError"
import { MetricsRefresh } from "@voiceagent/runner/Observability/PlatformMetrics"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { hasBody, REQUEST_ID_HEADER, requestIdFor, securityHeaders, withRequestContext } from "./RequestContext.js"
import { withRequestRules } from "./RequestRules.js"
import { routesOf } from "./Routes.js"
import { ServiceDirectory } from "./ServiceDirectory.js"
import { answerRaw, type UpgradeHandler } from "./WebSockets.js"

export interface Listen {
  readonly host: string
  readonly port: number
}

export const OPENAPI_PATH = "/api/v1/openapi.json"
export const DOCS_PATH = "/docs"

/** The API reference page, with its script inlined from npm: nothing is fetched from a CDN. */
export const docsLayer = HttpApiScalar.layer({
  path: DOCS_PATH,
  scalar: { withDefaultFonts: false, hideClientButton: false } as HttpApiScalar.ScalarConfig
})

export const baseUrlOf = (address: HttpServer.Address): string =>
  address._tag === "UnixAddress"
    ? `http://unix:${address.path}`
    : `http://${
      address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname
    }:${address.port}`

/**
 * How long a stopping server lets the requests in flight finish before it closes their connections
 * (`SHUTDOWN_GRACE`). A reference with a default, so layers built without it (tests) still get one.
 */
export class ShutdownGrace extends Context.Reference<ShutdownGrace>()("@voiceagent/http/Serve/ShutdownGrace", {
  defaultValue: (): Duration.Duration => Duration.seconds(10)
}) {}

/**
 * How long a client may take to send a request (`HTTP_HEADERS_TIMEOUT`, `HTTP_BODY_TIMEOUT`,
 * `HTTP_REQUEST_TIMEOUT`): its headers, each pause while its body arrives, and the whole of it; and
 * how long an idle keep-alive connection is kept open (`HTTP_KEEP_ALIVE_TIMEOUT`). A reference with
 * defaults, like `ShutdownGrace`.
 */
export class HttpTimeouts extends Context.Reference<HttpTimeouts>()("@voiceagent/http/Serve/HttpTimeouts", {
  defaultValue: (): {
    readonly headers: Duration.Duration
    readonly body: Duration.Duration
    readonly request: Duration.Duration
    readonly keepAlive: Duration.Duration
  } => ({
    headers: Duration.seconds(20),
    body: Duration.seconds(15),
    request: Duration.minutes(5),
    keepAlive: Duration.seconds(5)
  })
}) {}

/**
 * How long a client of our own services (the gateway's proxy) keeps an idle connection to one:
 * closed by the client a second before the service's keep-alive timeout would close it (half of it
 * when that is under two seconds). A connection the server closes while the client sends a
 * request on it fails that request (ECONNRESET): the gateway answered 502 to a sign-up sent 5 s
 * after its last request, once in CI. Node's agent keeps an idle socket forever unless given this
 * `timeout`; given one, it also lowers it to a second under the server's own `Keep-Alive:
 * timeout=` hint, so a service configured shorter is still met in time.
 */
export const clientIdleTimeout = (serverKeepAlive: Duration.Duration): number => {
  const millis = Duration.toMillis(serverKeepAlive)
  return Math.max(1, millis >= 2_000 ? millis - 1_000 : Math.floor(millis / 2))
}

/**
 * A request whose body stops arriving for `timeout` is answered `408 REQUEST_TIMEOUT` (when nothing
 * was answered yet) and its connection closed; the handler reading the body then fails, having
 * written nothing. Node's own timeouts bound the headers and the whole request (a bare 408 and a
 * close), but not a body that merely stops.
 */
const armBodyTimeout = (
  request: IncomingMessage,
  response: ServerResponse,
  timeout: Duration.Duration,
  log: (message: string, annotations: Record<string, unknown>) => void
) => {
  if (request.complete || !hasBody(request.headers)) return
  const onTimeout = () => {
    if (request.complete) return
    const requestId = requestIdFor(request.headers[REQUEST_ID_HEADER] as string | undefined)
    log("request body timed out", { requestId, method: request.method, path: request.url?.split("?")[0], status: 408 })
    if (response.headersSent) {
      request.socket.destroy()
      return
    }
    const body: ErrorBody = {
      error: {
        code: "REQUEST_TIMEOUT",
        message: `The request body stopped arriving for ${Duration.format(timeout)}`,
        requestId
      }
    }
    response.shouldKeepAlive = false
    response.writeHead(408, {
      "content-type": "application/json",
      connection: "close",
      [REQUEST_ID_HEADER]: requestId,
      ...securityHeaders
    })
    response.end(JSON.stringify(body), () => request.socket.destroy())
  }
  const disarm = () => request.off("timeout", onTimeout)
  request.setTimeout(Duration.toMillis(timeout), onTimeout)
  request.once("end", () => {
    disarm()
    // once the response has finished, node has set the socket's keep-alive timeout: leave that one
    if (!response.writableFinished && !request.socket.destroyed) request.socket.setTimeout(0)
  })
  response.once("close", disarm)
}

/**
 * What node answers by itself gets the error body too, not node's bare status line: a request it
 * cannot parse (`400`), headers over its limit (`431`), headers or a whole request that took longer
 * than `HTTP_HEADERS_TIMEOUT` / `HTTP_REQUEST_TIMEOUT` (`408`), and a body the client cut short by
 * closing its side of the connection (`400 INVALID_BODY`). As node's own handler does: only when
 * nothing of an answer was written on the connection yet, and the connection is closed after it.
 */
const answerClientError =
  (log: (message: string, annotations: Record<string, unknown>) => void) =>
  (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
    if (!socket.writable || (inFlight != null && inFlight.headersSent)) {
      socket.destroy()
      return
    }
    const [status, code, message] = error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "REQUEST_HEADERS_TOO_LARGE", "The request's headers are larger than the server accepts"] as const
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "REQUEST_TIMEOUT", "The request was not received in time"] as const
      : error.code === "HPE_INVALID_EOF_STATE"
      ? [400, "INVALID_BODY", "The connection was closed before the request body was complete"] as const
      : [400, "MALFORMED_REQUEST", "The request is not valid HTTP/1.1"] as const
    const requestId = requestIdFor(inFlight?.req?.headers[REQUEST_ID_HEADER] as string | undefined)
    log("client error", { requestId, status, reason: error.code ?? error.message })
    answerRaw(socket, status, code, message, requestId)
  }

/**
 * A node HTTP server that stops gracefully when the layer that serves on it is released: it stops
 * accepting connections, answers what is in flight with `Connection: close` (and anything that
 * arrives on an open connection meanwhile), closes connections as soon as they are idle, and after
 * `ShutdownGrace` closes the rest (their requests' fibers are interrupted).
 *
 * `@effect/platform-node`'s own release only calls `server.close()` after the request handler is
 * removed: nothing bounds it, and a keep-alive connection whose response ended after that stays
 * open until node's keep-alive timeout (5 s). The drain is a finalizer of `serve`, added after the
 * platform's, so it runs first: while it waits, the handler is still there.
 */
const gracefulServer = <R = never>(
  service: string,
  options: Listen,
  upgrade?: Effect.Effect<UpgradeHandler, never, R>
) =>
  Effect.gen(function*() {
    const onUpgrade = upgrade === undefined ? undefined : yield* upgrade
    /** Connections handed to the upgrade handler (a web call's stream): closed once the grace is over. */
    const upgraded = new Set<Duplex>()
    const grace = yield* ShutdownGrace
    const timeouts = yield* HttpTimeouts
    const runtime = yield* Effect.runtime<never>()
    const log = (message: string, annotations: Record<string, unknown>) =>
      Runtime.runFork(runtime)(Effect.logWarning(message).pipe(Effect.annotateLogs({ service, ...annotations })))
    const server = createServer({
      headersTimeout: Duration.toMillis(timeouts.headers),
      requestTimeout: Duration.toMillis(timeouts.request),
      keepAliveTimeout: Duration.toMillis(timeouts.keepAlive),
      // how often node looks for connections past those two (30 s by default, longer than the limits)
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Duration.toMillis(timeouts.headers) / 4))
    })
    server.on("clientError", answerClientError(log))
    const inFlight = new Set<ServerResponse>()
    let draining = false
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      armBodyTimeout(request, response, timeouts.body, log)
      inFlight.add(response)
      if (draining) response.shouldKeepAlive = false
      response.once("close", () => inFlight.delete(response))
    })
    const base = yield* NodeHttpServer.make(() => server, { port: options.port, host: options.host })

    const drain = Effect.gen(function*() {
      draining = true
      const closed = yield* Deferred.make<void>()
      const pending = inFlight.size
      for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false
      // stops accepting at once; the callback runs when the last connection has closed
      server.close(() => Deferred.unsafeDone(closed, Effect.void))
      server.closeIdleConnections()
      // connections become idle as their responses end
      const sweep = setInterval(() => server.closeIdleConnections(), 50)
      yield* Effect.logInfo(
        `${service} stopping: no new connections, ${pending} request(s) in flight (grace ${Duration.format(grace)})`
      )
      const inTime = yield* Deferred.await(closed).pipe(Effect.interruptible, Effect.timeout(grace), Effect.option)
      if (Option.isNone(inTime)) {
        yield* Effect.logWarning(
          `${service}: ${inFlight.size} request(s) still in flight after ${
            Duration.format(grace)
          }: closing their connections`
        )
        server.closeAllConnections()
        for (const socket of upgraded) socket.destroy()
        yield* Deferred.await(closed).pipe(Effect.interruptible, Effect.timeout("1 second"), Effect.ignore)
      }
      clearInterval(sweep)
    })

    return HttpServer.make({
      address: base.address,
      serve: (app: HttpApp.Default<unknown>, middleware?: HttpMiddleware.HttpMiddleware) =>
        (middleware === undefined ? base.serve(app) : base.serve(app, middleware)).pipe(
          // No route upgrades to a WebSocket. Without an `upgrade` listener node parses a request that
          // asks to upgrade like any other, its body included; with the platform's, it hands the
          // socket over unparsed and the request's body is never read: the gateway then forwarded
          // the declared Content-Length with no body, and the service's keep-alive connection took
          // the next request proxied on it for that body (408 for that unrelated request).
          // A server with an upgrade handler (the gateway's and comms' WebSockets) takes every request that
          // asks to upgrade, and answers itself those it does not take, closing their connections.
          Effect.tap(() =>
            Effect.sync(() => {
              server.removeAllListeners("upgrade")
              if (onUpgrade === undefined) return
              server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
                if (draining) return socket.destroy()
                upgraded.add(socket)
                socket.once("close", () => upgraded.delete(socket))
                onUpgrade(request, socket, head)
              })
            })
          ),
          Effect.zipLeft(Effect.addFinalizer(() => drain))
        )
    })
  })

/** A node HTTP server that stops gracefully (see `gracefulServer`), for any server of a role. */
export const gracefulHttpServer = <R = never>(
  service: string,
  options: Listen,
  upgrade?: Effect.Effect<UpgradeHandler, never, R>
) =>
  Layer.mergeAll(
    Layer.scoped(HttpServer.HttpServer, gracefulServer(service, options, upgrade)),
    NodeHttpServer.layerContext
  )

/**
 * Binds a node HTTP server that stops gracefully, and records its address in the service directory.
 * `upgrade`: its WebSockets (see `WebSockets`); without it, a request that asks to upgrade is served
 * as any other.
 */
export const listen = <R = never>(
  service: string,
  options: Listen,
  upgrade?: Effect.Effect<UpgradeHandler, never, R>
) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const directory = yield* ServiceDirectory
      const url = baseUrlOf(server.address)
      yield* directory.register(service, url)
      yield* Effect.logInfo(`${service} listening on ${url}`)
    })
  ).pipe(Layer.provideMerge(gracefulHttpServer(service, options, upgrade)))

/**
 * The context a server runs its requests in: the HTTP platform's services (what a handler's payload
 * decoding and a file answer use), the server and its scope, and `MetricsRefresh` for `/metrics`; not
 * the whole environment its layer was built in. Handlers keep the context their group was built with
 * (`HttpApiBuilder.group` merges it into each request's), and so do the middlewares. A request copies
 * its fiber's context several times (its own request and scope, the router's copy, the authentication
 * middleware's principal, that merge), and with the ~70 services of a role each copy cost ~5 µs.
 */
export const serverContext = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.pick(
    Scope.Scope,
    HttpServer.HttpServer,
    HttpPlatform.HttpPlatform,
    Etag.Generator,
    FileSystem.FileSystem,
    Path.Path,
    MetricsRefresh
  )(context) as Context.Context<R>

/** Serves `app` on the layer's server, its requests in `serverContext`. */
export const serveSlim = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.flatMap(
    Effect.context<HttpServer.HttpServer | Scope.Scope | R>(),
    (context) => HttpServer.serveEffect(app).pipe(Effect.locally(FiberRef.currentContext, serverContext(context)))
  )

/**
 * Serves one HttpApi on its own port, with `/api/v1/openapi.json` and `/docs`, and registers it as
 * a service of this process (for a gateway in the same process: see `Gateway/Proxy`).
 * Fresh, so the three services in one process never share a router.
 */
export const serveApi = <E, R, RU = never>(
  service: string,
  api: Layer.Layer<HttpApi.Api, E, R>,
  options: Listen,
  upgrade?: Effect.Effect<UpgradeHandler, never, RU>
) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const { api: served } = yield* HttpApi.Api
      const app = withRequestContext(service)(withRequestRules(routesOf(served))(yield* HttpApiBuilder.httpApp))
      yield* (yield* ServiceDirectory).registerLocal(service, {
        app,
        context: serverContext(yield* Effect.context<never>())
      })
      yield* serveSlim(app)
      return Layer.empty
    })
  ).pipe(
    Layer.provide([docsLayer, HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })]),
    Layer.provide(api),
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(listen(service, options, upgrade)),
    Layer.fresh
  )
