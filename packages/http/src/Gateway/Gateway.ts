import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  GatewayWebSocketRoutes,
  PlatformApi,
  routeFor,
  ServiceNames,
  webSocketRouteFor
} from "@voiceagent/domain/Gateway"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { errorResponse, pathOf, withRequestContext } from "../RequestContext.js"
import { docsLayer, type Listen, listen, OPENAPI_PATH, serveSlim } from "../Serve.js"
import { ServiceDirectory } from "../ServiceDirectory.js"
import {
  answerRaw,
  isWebSocketUpgrade,
  pathOfUrl,
  refuseUpgrade,
  requestIdOf,
  tunnel,
  type UpgradeHandler
} from "../WebSockets.js"
import { DASHBOARD_PATHS, makeDashboard } from "./Dashboard.js"
import { makeProtection, type ProtectionOptions } from "./Protection.js"
import { makeProxy, UpstreamAgent } from "./Proxy.js"

/**
 * The gateway's WebSockets: a request to upgrade on a WebSocket route (a web call's stream) goes on
 * to its service as it is; any other is refused (400) and its connection closed.
 */
const webSockets = Effect.gen(function*() {
  const directory = yield* ServiceDirectory
  const runtime = yield* Effect.runtime<never>()
  const allowed = GatewayWebSocketRoutes.map((route) => `${route.prefix}/…`).join(", ")
  const handler: UpgradeHandler = (request, socket, head) => {
    const route = webSocketRouteFor(pathOfUrl(request.url))
    if (route === undefined || !isWebSocketUpgrade(request)) return refuseUpgrade(request, socket, allowed)
    const requestId = requestIdOf(request)
    const base = Runtime.runSync(runtime)(directory.lookup(route.service))
    if (Option.isNone(base)) {
      return answerRaw(socket, 502, "UPSTREAM_UNAVAILABLE", `The ${route.service} service is not available`, requestId)
    }
    tunnel(request, socket, head, `${base.value}${request.url}`, requestId)
  }
  return handler
})

/** Every upstream must answer its /readyz with 200 for the gateway to be ready. */
const readiness = Effect.gen(function*() {
  const directory = yield* ServiceDirectory
  const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
  const checks = yield* Effect.forEach(ServiceNames, (service) =>
    Effect.gen(function*() {
      const base = yield* directory.lookup(service)
      if (Option.isNone(base)) return [service, "unavailable"] as const
      return yield* client.get(`${base.value}/readyz`).pipe(
        Effect.timeout("2 seconds"),
        Effect.as([service, "ready"] as const),
        Effect.orElseSucceed(() => [service, "not_ready"] as const)
      )
    }), { concurrency: "unbounded" })
  const upstreams = Object.fromEntries(checks)
  return checks.every(([, state]) => state === "ready")
    ? yield* HttpServerResponse.json({ status: "ready", service: "gateway", pid: process.pid, upstreams })
    : yield* errorResponse(503, "NOT_READY", "Service is not ready", upstreams)
})

const GatewayRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<ServiceDirectory | HttpClient.HttpClient | UpstreamAgent>()
    yield* router.get("/healthz", HttpServerResponse.json({ status: "ok", service: "gateway", pid: process.pid }))
    yield* router.get("/readyz", Effect.provide(readiness, context))
    const dashboard = makeDashboard() // the web dashboard at / (Dashboard.ts)
    for (const route of DASHBOARD_PATHS) yield* router.get(route, dashboard)
    yield* router.all("*", yield* makeProxy)
  })
)

/**
 * Which app answers a request: a path under a service's prefix (`GatewayRoutes` in the domain) goes
 * to the proxy at once, without the router (its context copy, route match and query parsing cost
 * more than the proxy's own work); everything else, to the gateway's router (its own routes, the
 * docs, the OpenAPI document, and the proxy's `404` for a path no service owns). A route the gateway
 * serves itself outside the services' prefixes is added to the router (`GatewayRoutes` above).
 */
const dispatch = <E, R>(
  routed: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  proxy: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) => routeFor(pathOf(request)) === undefined ? routed : proxy
  )

// The tag holds an API with its types erased, as `HttpApiBuilder.api` puts one there (through `any`). This API's
// precise type is not even comparable to the erased one (its endpoints' `Schema<never>` against `Schema<any>`).
const MergedApi = Layer.succeed(HttpApi.Api, {
  api: PlatformApi as unknown as Context.Tag.Service<HttpApi.Api>["api"],
  context: Context.empty()
})

export interface GatewayOptions extends Listen {
  /** CORS, rate limits and body limits; omitted: none (the bare proxy, for tests of the proxy itself). */
  readonly protection?: ProtectionOptions | undefined
}

/** The gateway on its own port: protection, routes, merged OpenAPI document, docs, proxy. */
export const serveGateway = (options: GatewayOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const router = yield* HttpApiBuilder.Router.router
      const app = dispatch(yield* HttpRouter.toHttpApp(router), yield* makeProxy)
      const protection = options.protection === undefined ? undefined : makeProtection(options.protection)
      yield* serveSlim(withRequestContext("gateway")(protection === undefined ? app : protection.middleware(app)))
      return Layer.empty
    })
  ).pipe(
    Layer.provide([GatewayRoutes, docsLayer, HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })]),
    Layer.provide([MergedApi, HttpApiBuilder.Router.Live, NodeHttpClient.layerUndici, UpstreamAgent.layer]),
    Layer.provide(listen("gateway", options, webSockets)),
    Layer.fresh
  )
