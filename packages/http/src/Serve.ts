import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
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

/** Binds a node HTTP server and records its address in the service directory. */
export const listen = (service: string, options: Listen) =>
  Layer.effectDiscard(
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const directory = yield* ServiceDirectory
      const url = baseUrlOf(server.address)
      yield* directory.register(service, url)
      yield* Effect.logInfo(`${service} listening on ${url}`)
    })
  ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port, host: options.host })))

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
