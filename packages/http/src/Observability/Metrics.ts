/**
 * `/metrics` in the Prometheus text format, on every process.
 *
 * Metrics are Effect `Metric`s (the process-wide registry: the platform's in
 * `@voiceagent/runner/Observability/PlatformMetrics`, the HTTP histogram below, the cluster's
 * `effect_cluster_*`). `@effect/opentelemetry` reads that registry as an OpenTelemetry
 * `MetricProducer`, and OpenTelemetry's Prometheus exporter (its serializer; no server of its own)
 * renders it. Both registry and reader are per process, like the metrics themselves, so the reader is
 * made once per process and shared by every server in it.
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { PlatformApi } from "@voiceagent/domain/Gateway"
import { MetricsRefresh } from "@voiceagent/runner/Observability/PlatformMetrics"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import { matchRoute, routesOf, type RouteTemplate, routeTemplate } from "../Routes.js"

export const METRICS_PATH = "/metrics"

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

// ---------------------------------------------------------------------------
// HTTP request durations
// ---------------------------------------------------------------------------

/** OpenTelemetry's `http.server.request.duration`, in seconds, with Prometheus' default buckets. */
export const httpRequestDuration = Metric.histogram(
  "http_server_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "Duration of HTTP requests served, by service, method, route template and status"
)

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

const templates: ReadonlyArray<RouteTemplate> = [
  routeTemplate("GET", "/healthz"),
  routeTemplate("GET", "/readyz"),
  routeTemplate("GET", METRICS_PATH),
  routeTemplate("GET", "/docs"),
  routeTemplate("GET", "/api/v1/openapi.json"),
  ...routesOf(PlatformApi)
]

/**
 * The route template a request matched (`/api/v1/agents/:agentId`), so durations are labelled by
 * route, never by raw path (ids would make a series per resource). Unknown paths share one label.
 */
export const routeOf = (method: string, path: string): string =>
  matchRoute(templates, method, path)?.path ?? "unmatched"

/**
 * One tagged histogram per label set, made once: the platform finds a metric's hook by the identity
 * of its label array, so a label array built per request cost a registry lookup (hashing the key
 * and its boundaries) every time. Bounded like the labels: services × methods × routes × statuses.
 */
const durations = new Map<string, Metric.Metric.Histogram<number>>()

const durationsFor = (service: string, method: string, route: string, status: number) => {
  const key = `${service} ${method} ${route} ${status}`
  let metric = durations.get(key)
  if (metric === undefined) {
    metric = Metric.taggedWithLabels(httpRequestDuration, [
      MetricLabel.make("service", service),
      MetricLabel.make("method", method),
      MetricLabel.make("route", route),
      MetricLabel.make("status", String(status))
    ])
    durations.set(key, metric)
  }
  return metric
}

export const recordRequest = (
  service: string,
  method: string,
  path: string,
  status: number,
  seconds: number
): Effect.Effect<void> => {
  const known = METHODS.has(method) ? method : "OTHER"
  return Metric.update(durationsFor(service, known, routeOf(known, path), status), seconds)
}

// ---------------------------------------------------------------------------
// The exporter
// ---------------------------------------------------------------------------

let reader: PrometheusExporter | undefined

/** The process's one reader of the Effect metric registry. */
const readerOf = (): PrometheusExporter => {
  if (reader !== undefined) return reader
  const exporter = new PrometheusExporter({ preventServerStart: true })
  const producer = Effect.runSync(
    Effect.provide(OtelMetrics.makeProducer, OtelResource.layer({ serviceName: "voiceagent" }))
  )
  exporter.setMetricProducer(producer)
  reader = exporter
  return exporter
}

// Without target_info and scope labels: a scrape's target already names the process, and the
// resource attributes would add one more constant series per metric.
const serializer = new PrometheusSerializer(undefined, false, undefined, true, true)

/** The Prometheus text of everything this process measured (cluster-wide gauges refreshed first). */
export const renderMetrics: Effect.Effect<string> = Effect.gen(function*() {
  const refresh = yield* Effect.serviceOption(MetricsRefresh)
  if (Option.isSome(refresh)) yield* refresh.value.refresh
  const { resourceMetrics } = yield* Effect.promise(() => readerOf().collect())
  return serializer.serialize(resourceMetrics)
})

export const metricsResponse: Effect.Effect<HttpServerResponse.HttpServerResponse> = Effect.map(
  renderMetrics,
  (text) => HttpServerResponse.text(text, { contentType: PROMETHEUS_CONTENT_TYPE })
)
