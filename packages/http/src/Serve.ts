import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createServer, type ServerResponse } from "node:http"
import { withRequestContext } from "./RequestContext.js"
import { ServiceDirectory } from "./ServiceDirectory.js"

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
    : `http://${address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname}:${address.port}`

/**
 * How long a stopping server lets the requests in flight finish before it closes their connections
 * (`SHUTDOWN_GRACE`). A reference with a default, so layers built without it (tests) still get one.
 */
export class ShutdownGrace extends Context.Reference<ShutdownGrace>()("@voiceagent/http/Serve/ShutdownGrace", {
  defaultValue: (): Duration.Duration => Duration.seconds(10)
}) {}

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
const gracefulServer = (service: string, options: Listen) =>
  Effect.gen(function*() {
    const grace = yield* ShutdownGrace
    const server = createServer()
    const inFlight = new Set<ServerResponse>()
    let draining = false
    server.on("request", (_request, response: ServerResponse) => {
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
          `${service}: ${inFlight.size} request(s) still in flight after ${Duration.format(grace)}: closing their connections`
        )
        server.closeAllConnections()
        yield* Deferred.await(closed).pipe(Effect.interruptible, Effect.timeout("1 second"), Effect.ignore)
      }
      clearInterval(sweep)
    })

    return HttpServer.make({
      address: base.address,
      serve: ((app: any, middleware?: any) =>
        base.serve(app, middleware).pipe(Effect.zipLeft(Effect.addFinalizer(() => drain)))) as HttpServer.HttpServer["serve"]
    })
  })

/** A node HTTP server that stops gracefully (see `gracefulServer`), for any server of a role. */
export const gracefulHttpServer = (service: string, options: Listen) =>
  Layer.mergeAll(Layer.scoped(HttpServer.HttpServer, gracefulServer(service, options)), NodeHttpServer.layerContext)

/** Binds a node HTTP server that stops gracefully, and records its address in the service directory. */
export const listen = (service: string, options: Listen) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const directory = yield* ServiceDirectory
      const url = baseUrlOf(server.address)
      yield* directory.register(service, url)
      yield* Effect.logInfo(`${service} listening on ${url}`)
    })
  ).pipe(Layer.provideMerge(gracefulHttpServer(service, options)))

/**
 * Serves one HttpApi on its own port, with `/api/v1/openapi.json` and `/docs`.
 * Fresh, so the three services in one process never share a router.
 */
export const serveApi = <E, R>(
  service: string,
  api: Layer.Layer<HttpApi.Api, E, R>,
  options: Listen
) =>
  Layer.unwrapEffect(
    Effect.map(HttpApiBuilder.httpApp, (app) => HttpServer.serve(withRequestContext(service)(app)))
  ).pipe(
    Layer.provide([docsLayer, HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })]),
    Layer.provide(api),
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(listen(service, options)),
    Layer.fresh
  )
