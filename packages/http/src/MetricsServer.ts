/**
 * The runner's own small HTTP server: a runner serves no API, but Prometheus scrapes it like every
 * other process (`/metrics`), and orchestrators probe it (`/healthz`, which names the process: `pid`).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { METRICS_PATH } from "./Observability/Metrics.js"
import { withRequestContext } from "./RequestContext.js"
import { baseUrlOf, gracefulHttpServer } from "./Serve.js"

/** Where the metrics server listens, once bound (port 0 picks a free one). */
export class MetricsAddress
  extends Context.Tag("Observability/MetricsAddress")<MetricsAddress, { readonly url: string }>()
{}

export const serveMetrics = (service: string, options: { readonly host: string; readonly port: number }) => {
  const router = HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", HttpServerResponse.unsafeJson({ status: "ok", service, pid: process.pid }))
  )
  return Layer.effect(
    MetricsAddress,
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const url = baseUrlOf(server.address)
      yield* Effect.logInfo(`${service} metrics on ${url}${METRICS_PATH}`)
      return { url }
    })
  ).pipe(
    Layer.merge(HttpServer.serve(withRequestContext(service)(router))),
    Layer.provide(gracefulHttpServer(`${service} metrics`, options))
  )
}
