/**
 * OpenTelemetry traces through `@effect/opentelemetry`, on when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set, off (no span built at all) otherwise.
 *
 * One trace crosses every process: the HTTP server span continues a `traceparent` (or `b3`) header,
 * the gateway's client span sends one on to the service, `@effect/cluster` carries the span in each
 * entity message's envelope, and the adapters' HTTP client spans (carriers, messaging, embeddings)
 * are children of the entity's. Spans leave through OpenTelemetry's OTLP/HTTP exporter, which reads
 * the other standard `OTEL_EXPORTER_OTLP_*` variables (headers, timeout, compression) itself.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { METRICS_PATH } from "./Metrics.js"

export interface TracingOptions {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`; none: tracing off. */
  readonly otlpEndpoint: Option.Option<string>
  /** `service.name` of this process's spans. */
  readonly serviceName: string
}

export const tracingOff: TracingOptions = { otlpEndpoint: Option.none(), serviceName: "voiceagent" }

/** Paths whose requests make no spans: probes and scrapes would drown the traces. */
const UNTRACED = new Set(["/healthz", "/readyz", METRICS_PATH])

const untraced = (url: string): boolean => {
  const q = url.indexOf("?")
  return UNTRACED.has(q === -1 ? url : url.slice(0, q))
}

/** The OTLP/HTTP traces path under the collector's base URL, as the specification appends it. */
export const tracesUrl = (endpoint: string): string => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/** Tracing for everything `layer` builds and runs: exported when configured, disabled when not. */
export const withTracing = (options: TracingOptions) => <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Option.match(options.otlpEndpoint, {
    onNone: () =>
      layer.pipe(HttpMiddleware.withTracerDisabledWhen(() => true), Layer.provide(Layer.setTracerEnabled(false))),
    onSome: (endpoint) =>
      layer.pipe(
        HttpMiddleware.withTracerDisabledWhen((request) => untraced(request.url)),
        Layer.provide(
          NodeSdk.layer(() => ({
            resource: { serviceName: options.serviceName, serviceVersion: "0.1.0" },
            spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }))
          }))
        )
      )
  })
