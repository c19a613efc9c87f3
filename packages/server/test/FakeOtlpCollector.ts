/**
 * An OpenTelemetry collector's OTLP/HTTP traces endpoint on loopback, from the protocol's documented
 * shapes: `POST /v1/traces` with an `ExportTraceServiceRequest` in the JSON encoding (ids in hex),
 * optionally gzip-compressed; answered `200 {}` (the success response with no partial rejection).
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type * as net from "node:net"
import * as zlib from "node:zlib"

export interface CollectedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, unknown>
}

interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly boolValue?: boolean
  readonly doubleValue?: number
}

const valueOf = (v: AnyValue | undefined): unknown =>
  v === undefined
    ? undefined
    : v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue

const attributesOf = (list: ReadonlyArray<{ key: string; value?: AnyValue }> | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]))

/** The JSON encoding uses hex ids; accept base64 (the protobuf-JSON default) as well. */
const idOf = (raw: string | undefined): string | undefined =>
  raw === undefined || raw === ""
    ? undefined
    : /^[0-9a-f]+$/i.test(raw)
    ? raw.toLowerCase()
    : Buffer.from(raw, "base64").toString("hex")

export interface FakeCollector {
  readonly url: string
  readonly spans: () => ReadonlyArray<CollectedSpan>
  readonly requests: () => number
}

export const make: Effect.Effect<FakeCollector, never, Scope.Scope> = Effect.acquireRelease(
  Effect.async<{ server: http.Server; collected: Array<CollectedSpan>; count: { n: number } }>((resume) => {
    const collected: Array<CollectedSpan> = []
    const count = { n: 0 }
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/v1/traces") {
          res.writeHead(404).end()
          return
        }
        try {
          const raw = Buffer.concat(chunks)
          const body = req.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(raw) : raw
          const request = JSON.parse(body.toString("utf8"))
          count.n++
          for (const rs of request.resourceSpans ?? []) {
            const service = String(attributesOf(rs.resource?.attributes)["service.name"] ?? "")
            for (const ss of rs.scopeSpans ?? []) {
              for (const span of ss.spans ?? []) {
                collected.push({
                  service,
                  traceId: idOf(span.traceId)!,
                  spanId: idOf(span.spanId)!,
                  parentSpanId: idOf(span.parentSpanId),
                  name: span.name,
                  kind: span.kind,
                  attributes: attributesOf(span.attributes)
                })
              }
            }
          }
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        } catch {
          res.writeHead(400, { "content-type": "application/json" }).end(
            JSON.stringify({ code: 3, message: "bad request" })
          )
        }
      })
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, collected, count })))
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(
  Effect.map(({ collected, count, server }) => ({
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    spans: () => [...collected],
    requests: () => count.n
  }))
)
