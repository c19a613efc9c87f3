import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { serveGateway } from "@voiceagent/http/Gateway/Gateway"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import { Context, Deferred, Effect, Layer, Option } from "effect"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { get, post, request, signup } from "./Http.js"

/** An upstream that reports exactly what reached it, and answers with what it is asked to. */
class Echo extends Context.Tag("test/Echo")<Echo, { readonly url: string }>() {
  static readonly layer = Layer.scoped(
    Echo,
    Effect.acquireRelease(
      Effect.async<{ server: http.Server; url: string }>((resume) => {
        const server = http.createServer((req, res) => {
          const hash = crypto.createHash("sha256")
          let length = 0
          req.on("data", (chunk: Buffer) => {
            hash.update(chunk)
            length += chunk.length
          })
          req.on("end", () => {
            const url = new URL(req.url!, "http://echo")
            const bytes = Number(url.searchParams.get("bytes") ?? "0")
            const status = Number(req.headers["x-echo-status"] ?? "200")
            if (bytes > 0) {
              res.writeHead(status, { "content-type": "application/octet-stream", "x-echo-custom": "streamed" })
              const chunk = Buffer.alloc(64 * 1024, 7)
              let sent = 0
              const pump = () => {
                while (sent < bytes) {
                  const slice = chunk.subarray(0, Math.min(chunk.length, bytes - sent))
                  sent += slice.length
                  if (!res.write(slice)) return res.once("drain", pump)
                }
                res.end()
              }
              return pump()
            }
            res.writeHead(status, {
              "content-type": "application/json",
              "x-echo-custom": "kept",
              "set-cookie": "a=1",
              "connection": "keep-alive, x-hop",
              "x-hop": "dropped"
            })
            res.end(JSON.stringify({
              method: req.method,
              url: req.url,
              headers: req.headers,
              length,
              sha256: hash.digest("hex")
            }))
          })
        })
        server.listen(0, "127.0.0.1", () => {
          resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
        })
      }),
      ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    ).pipe(Effect.map(({ url }) => ({ url })))
  )
}

class GatewayUrl extends Context.Tag("test/GatewayUrl")<GatewayUrl, string>() {}

const GatewayInFrontOfEcho = Layer.effect(
  GatewayUrl,
  Effect.flatMap(ServiceDirectory, (d) => Effect.map(d.lookup("gateway"), Option.getOrThrow))
).pipe(
  Layer.provideMerge(serveGateway({ host: "127.0.0.1", port: 0 })),
  Layer.provideMerge(
    Layer.unwrapEffect(Effect.map(Echo, (echo) =>
      ServiceDirectory.make({
        comms: echo.url,
        campaign: echo.url,
        // nothing listens there: the gateway must answer 502, not hang or crash
        "platform-core": "http://127.0.0.1:1"
      })))
  ),
  Layer.provideMerge(Echo.layer)
)

const multipartBody = (boundary: string, file: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\n` +
        "Content-Type: text/csv\r\n\r\n"
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])

/**
 * A service with a 2 s keep-alive timeout (shorter than the services' 5 s, which the gateway's agent is set for: it
 * learns this one from the `Keep-Alive: timeout=2` hint) that reports each connection's end: whether the client closed
 * it (`end`) or the service's own keep-alive timer did. `?drop=reused` destroys, unanswered, a request that arrives on
 * a connection which already served one (what a client sees when it sends on a connection the server is closing).
 */
interface Connection {
  readonly served: number
  readonly endedByClient: boolean
  readonly timedOut: boolean
  readonly closed: Deferred.Deferred<void>
}
class KeepAlive extends Context.Tag("test/KeepAlive")<KeepAlive, {
  readonly url: string
  readonly connections: Array<Connection>
}>() {
  static readonly layer = Layer.scoped(
    KeepAlive,
    Effect.acquireRelease(
      Effect.async<{ server: http.Server; url: string; connections: Array<Connection> }>((resume) => {
        const connections: Array<Connection> = []
        const bySocket = new Map<Socket, { -readonly [K in keyof Connection]: Connection[K] }>()
        const server = http.createServer({ keepAliveTimeout: 2_000 }, (req, res) => {
          const connection = bySocket.get(req.socket)!
          connection.served++
          req.resume()
          req.on("end", () => {
            if (req.url?.includes("drop=reused") && connection.served > 1) return req.socket.destroy()
            res.writeHead(200, { "content-type": "application/json" })
            res.end(JSON.stringify({ connection: connections.indexOf(connection), served: connection.served }))
          })
        })
        server.on("connection", (socket: Socket) => {
          const connection = {
            served: 0,
            endedByClient: false,
            timedOut: false,
            closed: Deferred.unsafeMake<void>(undefined as any)
          }
          bySocket.set(socket, connection)
          connections.push(connection)
          socket.on("end", () => (connection.endedByClient = true))
          socket.on("timeout", () => (connection.timedOut = true))
          socket.on("close", () => Deferred.unsafeDone(connection.closed, Effect.void))
        })
        server.listen(0, "127.0.0.1", () => {
          resume(
            Effect.succeed({ server, connections, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
          )
        })
      }),
      ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
    )
  )
}

const GatewayInFrontOfKeepAlive = Layer.effect(
  GatewayUrl,
  Effect.flatMap(ServiceDirectory, (d) => Effect.map(d.lookup("gateway"), Option.getOrThrow))
).pipe(
  Layer.provideMerge(serveGateway({ host: "127.0.0.1", port: 0 })),
  Layer.provideMerge(
    Layer.unwrapEffect(
      Effect.map(
        KeepAlive,
        (service) => ServiceDirectory.make({ comms: service.url, campaign: service.url, "platform-core": service.url })
      )
    )
  ),
  Layer.provideMerge(KeepAlive.layer)
)

describe("gateway keep-alive connections to the services", () => {
  layer(GatewayInFrontOfKeepAlive, { timeout: 30_000, excludeTestServices: true })((it) => {
    it.effect(
      "are closed by the gateway when idle, before the service's keep-alive timeout would close one under a request",
      () =>
        Effect.gen(function*() {
          const gateway = yield* GatewayUrl
          const service = yield* KeepAlive
          const first = yield* get(`${gateway}/api/v1/profile`)
          assert.strictEqual(first.status, 200, first.text)
          const connection = service.connections[first.body.connection]!
          yield* Deferred.await(connection.closed)
          assert.deepInclude(connection, { endedByClient: true, timedOut: false })
          const next = yield* get(`${gateway}/api/v1/profile`)
          assert.strictEqual(next.status, 200, next.text)
          assert.notStrictEqual(next.body.connection, first.body.connection)
        })
    )

    it.effect(
      "a bodiless idempotent request that meets a closing connection is sent again on a new one; a POST is not",
      () =>
        Effect.gen(function*() {
          const gateway = yield* GatewayUrl
          const service = yield* KeepAlive
          const warm = yield* get(`${gateway}/api/v1/profile`)
          assert.strictEqual(warm.status, 200, warm.text)
          const replayed = yield* get(`${gateway}/api/v1/profile?drop=reused`)
          assert.strictEqual(replayed.status, 200, replayed.text)
          assert.deepStrictEqual(replayed.body, { connection: service.connections.length - 1, served: 1 })
          assert.strictEqual(
            service.connections[warm.body.connection]!.served,
            warm.body.served + 1,
            "the GET met the kept connection first"
          )

          const again = yield* get(`${gateway}/api/v1/profile`)
          assert.strictEqual(again.status, 200, again.text)
          const before = service.connections.length
          const posted = yield* post(`${gateway}/api/v1/agents?drop=reused`, { json: { name: "a" } })
          assert.strictEqual(posted.status, 502, posted.text)
          assert.strictEqual(posted.body.error.code, "UPSTREAM_UNAVAILABLE")
          assert.strictEqual(
            service.connections[again.body.connection]!.served,
            again.body.served + 1,
            "the POST met the kept connection"
          )
          assert.strictEqual(service.connections.length, before, "the POST was not sent again")
        })
    )
  })
})

describe("gateway", () => {
  layer(GatewayInFrontOfEcho, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("streams a multipart upload byte for byte and keeps method, path, query and headers", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const file = crypto.randomBytes(3 * 1024 * 1024 + 17)
        const boundary = "----vap-test-boundary"
        const body = multipartBody(boundary, file)
        const reply = yield* post(`${gateway}/api/v1/contact-lists/123/upload?dryRun=1`, {
          body,
          headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "x-custom": "yes" }
        })
        assert.strictEqual(reply.status, 200, reply.text)
        assert.strictEqual(reply.body.method, "POST")
        assert.strictEqual(reply.body.url, "/api/v1/contact-lists/123/upload?dryRun=1")
        assert.strictEqual(reply.body.length, body.length)
        assert.strictEqual(reply.body.sha256, crypto.createHash("sha256").update(body).digest("hex"))
        assert.strictEqual(reply.body.headers["content-type"], `multipart/form-data; boundary=${boundary}`)
        assert.strictEqual(reply.body.headers["x-custom"], "yes")
        assert.match(reply.body.headers["x-request-id"], /^[0-9a-f-]{36}$/)
        assert.strictEqual(reply.body.headers["x-forwarded-for"], "127.0.0.1")
        assert.strictEqual(reply.headers.get("x-request-id"), reply.body.headers["x-request-id"])
      }))

    it.effect("streams a chunked request body without a content length", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const chunks = [Buffer.from("first,"), Buffer.from("second,"), Buffer.from("third")]
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk)
            controller.close()
          }
        })
        const reply = yield* Effect.promise(() =>
          fetch(`${gateway}/api/v1/chatapp/stream`, {
            method: "PUT",
            body: stream,
            headers: { "content-type": "text/plain" },
            duplex: "half"
          } as RequestInit).then(async (r) => ({ status: r.status, body: await r.json() as any }))
        )
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body.method, "PUT")
        assert.strictEqual(reply.body.length, Buffer.concat(chunks).length)
        assert.strictEqual(reply.body.sha256, crypto.createHash("sha256").update(Buffer.concat(chunks)).digest("hex"))
      }))

    it.effect("keeps upstream status codes and end-to-end headers, drops hop-by-hop ones", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        for (const status of [201, 404, 409, 418, 503]) {
          const reply = yield* request("DELETE", `${gateway}/api/v1/agents/42`, {
            headers: { "x-echo-status": String(status) }
          })
          assert.strictEqual(reply.status, status)
          assert.strictEqual(reply.body.method, "DELETE")
          assert.strictEqual(reply.headers.get("x-echo-custom"), "kept")
          assert.strictEqual(reply.headers.get("set-cookie"), "a=1")
          assert.isNull(reply.headers.get("x-hop"), "headers listed in Connection are hop-by-hop")
        }
      }))

    it.effect("streams a large response", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const bytes = 8 * 1024 * 1024 + 3
        const reply = yield* Effect.promise(() =>
          fetch(`${gateway}/api/v1/agents/download?bytes=${bytes}`).then(async (r) => ({
            status: r.status,
            header: r.headers.get("x-echo-custom"),
            length: (await r.arrayBuffer()).byteLength
          }))
        )
        assert.deepStrictEqual(reply, { status: 200, header: "streamed", length: bytes })
      }))

    it.effect("answers an unrouted prefix with 404 'No gateway route for <path>'", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        // "/" is the web dashboard (Gateway/Dashboard.ts, DashboardServing.test.ts)
        for (const path of ["/api/v1/unknown", "/api/v1/agentsX", "/api/v2/agents", "/unknown"]) {
          const reply = yield* get(`${gateway}${path}?x=1`)
          assert.strictEqual(reply.status, 404)
          assert.strictEqual(reply.body.error.code, "GATEWAY_ROUTE_NOT_FOUND")
          assert.strictEqual(reply.body.error.message, `No gateway route for ${path}`)
        }
      }))

    it.effect("answers 502 in the standard body when the owning service is down", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const reply = yield* get(`${gateway}/api/v1/profile`)
        assert.strictEqual(reply.status, 502)
        assert.strictEqual(reply.body.error.code, "UPSTREAM_UNAVAILABLE")
        const ready = yield* get(`${gateway}/readyz`)
        assert.strictEqual(ready.status, 503)
      }))
  })

  layer(TestPlatform.layer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "routes the real services: sign up, create a key and call an authenticated route through one origin",
      () =>
        Effect.gen(function*() {
          const { gateway } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(gateway)
          const key = yield* post(`${gateway}/api-keys`, { token: account.token, json: { name: "via gateway" } })
          assert.strictEqual(key.status, 201)
          const profile = yield* get(`${gateway}/profile`, { token: key.body.key })
          assert.strictEqual(profile.status, 200)
          assert.strictEqual(profile.body.user.id, account.userId)
          const denied = yield* get(`${gateway}/api-keys`, { token: key.body.key })
          assert.strictEqual(denied.status, 403)
          assert.strictEqual(denied.body.error.message, "API key authentication is not allowed for this route")
          // routes owned by the other services answer from them, with the same key
          const personas = yield* get(`${gateway}/prompts/personas`, { token: key.body.key })
          assert.strictEqual(personas.status, 200)
          assert.isAbove(personas.body.total, 0)
          const lists = yield* get(`${gateway}/contact-lists`, { token: key.body.key })
          assert.deepStrictEqual([lists.status, lists.body.total], [200, 0])

          // security headers on every answer, errors and the docs page included; API answers are never cached
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const docsPage = yield* get(gateway.replace(/\/api\/v1$/, "/docs"))
          for (const reply of [profile, denied, personas, yield* get(`${comms}/agents`), docsPage]) {
            assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff")
            assert.strictEqual(reply.headers.get("x-frame-options"), "DENY")
            assert.strictEqual(reply.headers.get("content-security-policy"), "frame-ancestors 'none'")
            assert.strictEqual(reply.headers.get("referrer-policy"), "no-referrer")
          }
          assert.strictEqual(profile.headers.get("cache-control"), "no-store")
          assert.strictEqual(denied.headers.get("cache-control"), "no-store")
        })
    )

    it.effect("serves the merged OpenAPI document and the reference page", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const spec = yield* get(`${gateway}/openapi.json`)
        assert.strictEqual(spec.status, 200)
        assert.strictEqual(spec.body.openapi, "3.1.0")
        for (
          const path of [
            "/api/v1/auth/signup",
            "/api/v1/api-keys",
            "/api/v1/profile",
            "/healthz",
            "/api/v1/campaigns/{id}/schedule",
            "/api/v1/chatapp/campaigns",
            "/api/v1/chatapp/webhook/{tenantId}",
            "/api/v1/sms-agent/messages"
          ]
        ) {
          assert.property(spec.body.paths, path)
        }
        const docs = yield* get(`${gateway.replace(/\/api\/v1$/, "")}/docs`)
        assert.strictEqual(docs.status, 200)
        assert.include(docs.text, "Voice Agent Platform API")
      }))
  })
})
