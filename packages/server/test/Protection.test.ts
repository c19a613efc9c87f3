import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { generateApiKey } from "@voiceagent/http/Auth/ApiKeyFormat"
import { serveGateway } from "@voiceagent/http/Gateway/Gateway"
import { defaultProtection, type ProtectionOptions } from "@voiceagent/http/Gateway/Protection"
import { MAX_READ_BODY_BYTES } from "@voiceagent/http/RequestContext"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import { VectorStore } from "@voiceagent/runner/Ports/VectorStore"
import * as Config from "@voiceagent/server/Config"
import { type Cause, ConfigProvider, Context, Effect, Either, Exit, Layer, Option } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { createKey, del, get, post, request, signup } from "./Http.js"

// The gateway's protection over real sockets: first in front of a recording upstream (what reached
// the service, and whether its request was aborted), then in front of the real services.

const KiB = 1024
const MiB = 1024 * KiB

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  bytes: number
  outcome: "pending" | "ended" | "aborted"
}

/** An upstream that records every request and answers with `x-echo-status` (default 200). */
class Upstream extends Context.Tag("test/Upstream")<Upstream, { readonly url: string; readonly seen: Array<Seen> }>() {
  static readonly layer = Layer.scoped(
    Upstream,
    Effect.acquireRelease(
      Effect.async<{ server: http.Server; url: string; seen: Array<Seen> }>((resume) => {
        const seen: Array<Seen> = []
        const server = http.createServer((req, res) => {
          const record: Seen = {
            method: req.method!,
            url: req.url!,
            headers: req.headers,
            bytes: 0,
            outcome: "pending"
          }
          seen.push(record)
          req.on("data", (chunk: Buffer) => (record.bytes += chunk.length))
          req.on("close", () => {
            if (!req.complete) record.outcome = "aborted"
          })
          req.on("end", () => {
            record.outcome = "ended"
            res.writeHead(Number(req.headers["x-echo-status"] ?? "200"), { "content-type": "application/json" })
            res.end(JSON.stringify({ method: req.method, url: req.url, bytes: record.bytes }))
          })
        })
        server.listen(
          0,
          "127.0.0.1",
          () =>
            resume(Effect.succeed({ server, seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
        )
      }),
      ({ server }) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    ).pipe(Effect.map(({ seen, url }) => ({ seen, url })))
  )
}

class GatewayUrl extends Context.Tag("test/GatewayUrl")<GatewayUrl, string>() {}

const gatewayInFrontOfUpstream = (protection: ProtectionOptions) =>
  Layer.effect(GatewayUrl, Effect.flatMap(ServiceDirectory, (d) => Effect.map(d.lookup("gateway"), Option.getOrThrow)))
    .pipe(
      Layer.provideMerge(serveGateway({ host: "127.0.0.1", port: 0, protection })),
      Layer.provideMerge(
        Layer.unwrapEffect(
          Effect.map(Upstream, (u) => ServiceDirectory.make({ comms: u.url, campaign: u.url, "platform-core": u.url }))
        )
      ),
      Layer.provideMerge(Upstream.layer)
    )

interface Sent {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly body: any
  /** Set when no answer arrived (the connection failed first). */
  readonly error?: string
}

/**
 * Sends `body` in 64 KiB writes, with its length declared or chunked (no length), over a fresh
 * connection, and stops writing as soon as an answer arrives (as a careful client does).
 */
const send = (
  url: string,
  options: {
    readonly body: Buffer
    readonly chunked?: boolean
    readonly method?: string
    readonly headers?: Record<string, string>
  }
) =>
  Effect.async<Sent>((resume) => {
    const target = new URL(url)
    let answered = false
    let done = false
    const finish = (sent: Sent) => {
      if (done) return
      done = true
      req.destroy()
      resume(Effect.succeed(sent))
    }
    const req = http.request({
      host: target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      method: options.method ?? "POST",
      agent: false,
      headers: {
        ...options.headers,
        ...(options.chunked === true
          ? { "transfer-encoding": "chunked" }
          : { "content-length": String(options.body.length) })
      }
    }, (res) => {
      answered = true
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => {
        let body: unknown = undefined
        try {
          body = text === "" ? undefined : JSON.parse(text)
        } catch {
          body = undefined
        }
        finish({ status: res.statusCode!, headers: res.headers, text, body })
      })
    })
    req.on("error", (e) => finish({ status: 0, headers: {}, text: "", body: undefined, error: e.message }))
    let written = 0
    const pump = (): void => {
      while (!answered && written < options.body.length) {
        const slice = options.body.subarray(written, written + 64 * KiB)
        written += slice.length
        if (!req.write(slice)) return void req.once("drain", pump)
      }
      if (!answered) req.end()
    }
    pump()
  })

/**
 * Waits (up to 30 s of real time; it ends on the outcome) for the
 * upstream to have seen a request to `url` end one way or another.
 */
const outcomeOf = (url: string) =>
  Effect.gen(function*() {
    const { seen } = yield* Upstream
    for (const deadline = performance.now() + 30_000; performance.now() < deadline;) {
      const found = seen.filter((s) => s.url === url)
      if (found.length > 0 && found.every((s) => s.outcome !== "pending")) return found.map((s) => s.outcome)
      yield* Effect.sleep("50 millis")
    }
    return seen.filter((s) => s.url === url).map((s) => s.outcome)
  })

const reachedUpstream = (url: string) => Effect.map(Upstream, ({ seen }) => seen.filter((s) => s.url === url).length)

let clients = 0
/** A client address of its own (the trusted proxy in front writes it), so each test has fresh buckets. */
const newClient = () => `198.51.100.${++clients}`

const ORIGIN = "https://app.example.com"

/** A 429 whose Retry-After is whole seconds, at most `maxRetryAfter` (less if time passed since the last token). */
const rateLimited = (reply: { status: number; headers: Headers; body: any }, maxRetryAfter: number) => {
  assert.strictEqual(reply.status, 429, JSON.stringify(reply.body))
  assert.strictEqual(reply.body.error.code, "RATE_LIMITED")
  const retryAfter = reply.headers.get("retry-after")!
  assert.match(retryAfter, /^\d+$/)
  assert.isAtLeast(Number(retryAfter), 1)
  assert.isAtMost(Number(retryAfter), maxRetryAfter)
  assert.deepStrictEqual(reply.body.error.details, { retryAfterSeconds: Number(retryAfter) })
  assert.strictEqual(reply.headers.get("ratelimit-remaining"), "0")
  return Number(retryAfter)
}

describe("gateway protection, in front of a recording upstream", () => {
  const protection: ProtectionOptions = {
    // a token every 4 seconds: nothing refills between a test's requests, even on a loaded machine
    apiKeyRate: { perSecond: 0.25, burst: 3 },
    ipRate: { perSecond: 0.25, burst: 5 },
    trustedProxyHops: 1,
    maxBodyBytes: 64 * KiB,
    maxUploadBytes: 101 * MiB,
    corsOrigins: [ORIGIN, "http://localhost:5173"]
  }
  layer(gatewayInFrontOfUpstream(protection), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect(
      "answers 429 with Retry-After and RateLimit headers once an API key's burst is spent, and again after a refill",
      () =>
        Effect.gen(function*() {
          const gateway = yield* GatewayUrl
          const headers = { "x-forwarded-for": newClient() }
          const token = generateApiKey()
          const path = "/api/v1/agents?rate=1"
          const replies = []
          for (let i = 0; i < 3; i++) replies.push(yield* get(`${gateway}${path}`, { token, headers }))
          assert.deepStrictEqual(replies.map((r) => r.status), [200, 200, 200])
          assert.deepStrictEqual(replies.map((r) => r.headers.get("ratelimit-remaining")), ["2", "1", "0"])
          assert.strictEqual(replies[0]!.headers.get("ratelimit-limit"), "3")
          assert.include(["11", "12"], replies[2]!.headers.get("ratelimit-reset"), "seconds until the bucket is full")
          const refused = yield* get(`${gateway}${path}`, { token, headers })
          const retryAfter = rateLimited(refused, 4)
          assert.strictEqual(refused.body.error.requestId, refused.headers.get("x-request-id"))
          assert.strictEqual(yield* reachedUpstream(path), 3, "the refused request never reached the service")
          // a client that waits as told gets through
          yield* Effect.sleep(`${retryAfter} seconds`)
          assert.strictEqual((yield* get(`${gateway}${path}`, { token, headers })).status, 200)
        })
    )

    it.effect("keeps API keys apart: one key's exhaustion does not affect another key", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient() }
        const spent = generateApiKey()
        for (let i = 0; i < 3; i++) yield* get(`${gateway}/api/v1/agents`, { token: spent, headers })
        assert.strictEqual((yield* get(`${gateway}/api/v1/agents`, { token: spent, headers })).status, 429)
        const other = yield* get(`${gateway}/api/v1/agents`, { token: generateApiKey(), headers })
        assert.strictEqual(other.status, 200)
        assert.strictEqual(other.headers.get("ratelimit-remaining"), "2")
      }))

    it.effect("charges keys the service refuses (401) to the client address, so made-up keys stop at its burst", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient(), "x-echo-status": "401" }
        for (let i = 0; i < 5; i++) {
          assert.strictEqual((yield* get(`${gateway}/api/v1/agents`, { token: generateApiKey(), headers })).status, 401)
        }
        rateLimited(yield* get(`${gateway}/api/v1/agents`, { token: generateApiKey(), headers }), 4)
      }))

    it.effect("refuses a key with a bad checksum at the gateway: 401 INVALID_API_KEY, nothing proxied", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient() }
        const real = generateApiKey()
        const tampered = real.slice(0, -1) + (real.endsWith("A") ? "B" : "A")
        for (const token of [tampered, `Bearer ${real}`, "not-a-key"]) {
          const reply = yield* get(`${gateway}/api/v1/agents?bad=${encodeURIComponent(token)}`, { token, headers })
          assert.strictEqual(reply.status, 401, token)
          assert.deepStrictEqual([reply.body.error.code, reply.body.error.message], [
            "INVALID_API_KEY",
            "Invalid API key"
          ])
        }
        assert.isFalse((yield* Upstream).seen.some((s) => s.url.includes("bad=")))
      }))

    it.effect("gives requests without an API key one bucket per client address, and leaves probes and docs alone", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const client = newClient()
        // sessions and anonymous requests from one address share its bucket
        for (const token of [undefined, "aaa.bbb.ccc", "ddd.eee.fff", undefined, "aaa.bbb.ccc"]) {
          const reply = yield* get(`${gateway}/api/v1/auth/login`, {
            headers: { "x-forwarded-for": client },
            ...(token ? { token } : {})
          })
          assert.strictEqual(reply.status, 200)
        }
        const refused = yield* get(`${gateway}/api/v1/auth/login`, { headers: { "x-forwarded-for": client } })
        rateLimited(refused, 4)
        // the address is the entry the trusted proxy added; what the client wrote to its left does not count
        rateLimited(
          yield* get(`${gateway}/api/v1/profile`, { headers: { "x-forwarded-for": `10.1.2.3, ${client}` } }),
          4
        )
        assert.strictEqual(
          (yield* get(`${gateway}/api/v1/profile`, { headers: { "x-forwarded-for": `${client}, ${newClient()}` } }))
            .status,
          200
        )
        for (const path of ["/healthz", "/readyz", "/api/v1/openapi.json", "/docs"]) {
          for (let i = 0; i < 3; i++) {
            const reply = yield* get(`${gateway}${path}`, { headers: { "x-forwarded-for": client } })
            assert.strictEqual(reply.status, 200, path)
            assert.isNull(reply.headers.get("ratelimit-limit"), path)
          }
        }
        // carriers' and the messaging platform's callbacks come from shared addresses: signatures, not buckets
        for (let i = 0; i < 3; i++) {
          assert.strictEqual(
            (yield* post(`${gateway}/api/v1/telephony/twilio/status/x`, { headers: { "x-forwarded-for": client } }))
              .status,
            200
          )
          assert.strictEqual(
            (yield* post(`${gateway}/api/v1/chatapp/webhook/t`, { headers: { "x-forwarded-for": client } })).status,
            200
          )
        }
      }))

    it.effect("refuses a declared body over the route's limit with 413 before anything reaches the service", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient(), "content-type": "application/json" }
        const over = yield* send(`${gateway}/api/v1/agents?declared=over`, {
          body: Buffer.alloc(64 * KiB + 1, 32),
          headers
        })
        assert.strictEqual(over.status, 413, over.error ?? over.text)
        assert.strictEqual(over.body.error.code, "PAYLOAD_TOO_LARGE")
        assert.deepStrictEqual(over.body.error.details, { limitBytes: 64 * KiB })
        assert.strictEqual(over.headers["connection"], "close")
        assert.strictEqual(yield* reachedUpstream("/api/v1/agents?declared=over"), 0)
        const exact = yield* send(`${gateway}/api/v1/agents?declared=exact`, {
          body: Buffer.alloc(64 * KiB, 32),
          headers
        })
        assert.deepStrictEqual([exact.status, exact.body.bytes], [200, 64 * KiB])
        // a declared length far beyond: answered at once, without waiting for the body
        const huge = yield* send(`${gateway}/api/v1/agents?declared=huge`, {
          body: Buffer.alloc(64 * MiB),
          headers
        })
        assert.strictEqual(huge.status, 413, huge.error ?? huge.text)
      }))

    it.effect("refuses a chunked body once it streams past the limit with 413, aborting the upstream request", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient(), "content-type": "application/json" }
        const over = yield* send(`${gateway}/api/v1/agents?chunked=over`, {
          body: Buffer.alloc(MiB, 32),
          chunked: true,
          headers
        })
        assert.strictEqual(over.status, 413, over.error ?? over.text)
        assert.strictEqual(over.body.error.code, "PAYLOAD_TOO_LARGE")
        assert.deepStrictEqual(yield* outcomeOf("/api/v1/agents?chunked=over"), ["aborted"])
        const under = yield* send(`${gateway}/api/v1/agents?chunked=under`, {
          body: Buffer.alloc(60 * KiB, 32),
          chunked: true,
          headers
        })
        assert.deepStrictEqual([under.status, under.body.bytes], [200, 60 * KiB])
        assert.deepStrictEqual(yield* outcomeOf("/api/v1/agents?chunked=under"), ["ended"])
      }))

    it.effect("gives the upload routes their own larger limits, declared and chunked", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { "x-forwarded-for": newClient(), "content-type": "multipart/form-data; boundary=x" }
        const csv = "/api/v1/contact-lists/l1/upload"
        const fits = yield* send(`${gateway}${csv}?n=1`, { body: Buffer.alloc(3 * MiB, 97), headers })
        assert.deepStrictEqual([fits.status, fits.body.bytes], [200, 3 * MiB])
        const fitsChunked = yield* send(`${gateway}${csv}?n=2`, {
          body: Buffer.alloc(3 * MiB, 97),
          chunked: true,
          headers
        })
        assert.deepStrictEqual([fitsChunked.status, fitsChunked.body.bytes], [200, 3 * MiB])
        const over = yield* send(`${gateway}${csv}?n=3`, { body: Buffer.alloc(3 * MiB + 1, 97), headers })
        assert.strictEqual(over.status, 413, over.error ?? over.text)
        assert.strictEqual(yield* reachedUpstream(`${csv}?n=3`), 0)
        const overChunked = yield* send(`${gateway}${csv}?n=4`, {
          body: Buffer.alloc(5 * MiB, 97),
          chunked: true,
          headers
        })
        assert.strictEqual(overChunked.status, 413, overChunked.error ?? overChunked.text)
        assert.deepStrictEqual(yield* outcomeOf(`${csv}?n=4`), ["aborted"])
        const documents = yield* send(`${gateway}/api/v1/knowledge-bases/k1/documents/upload`, {
          body: Buffer.alloc(12 * MiB, 97),
          headers
        })
        assert.deepStrictEqual([documents.status, documents.body.bytes], [200, 12 * MiB])
      }))

    it.effect("answers CORS preflights itself: allowed origins get the methods and headers, others nothing", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const client = newClient()
        const preflight = (origin: string) =>
          request("OPTIONS", `${gateway}/api/v1/agents?preflight=1`, {
            headers: {
              origin,
              "access-control-request-method": "POST",
              "access-control-request-headers": "authorization, content-type",
              "x-forwarded-for": client
            }
          })
        // more preflights than the address's burst: they are not rate limited
        for (let i = 0; i < 8; i++) {
          const allowed = yield* preflight(ORIGIN)
          assert.strictEqual(allowed.status, 204)
          assert.strictEqual(allowed.headers.get("access-control-allow-origin"), ORIGIN)
          assert.includeMembers(allowed.headers.get("access-control-allow-methods")!.split(", "), [
            "GET",
            "POST",
            "PATCH",
            "PUT",
            "DELETE"
          ])
          assert.includeMembers(
            allowed.headers.get("access-control-allow-headers")!.split(", "),
            ["authorization", "content-type", "x-request-id", "idempotency-key"]
          )
          assert.strictEqual(allowed.headers.get("access-control-max-age"), "7200")
          assert.strictEqual(allowed.headers.get("vary"), "Origin")
          assert.isNull(allowed.headers.get("access-control-allow-credentials"), "bearer tokens, not cookies")
        }
        const other = yield* preflight("http://localhost:5173")
        assert.strictEqual(other.headers.get("access-control-allow-origin"), "http://localhost:5173")
        for (const origin of ["https://evil.example", "https://app.example.com.evil.example", "null"]) {
          const refused = yield* preflight(origin)
          assert.strictEqual(refused.status, 204)
          assert.isNull(refused.headers.get("access-control-allow-origin"), origin)
          assert.isNull(refused.headers.get("access-control-allow-methods"), origin)
        }
        assert.strictEqual(yield* reachedUpstream("/api/v1/agents?preflight=1"), 0, "never proxied")
      }))

    it.effect("puts CORS headers on real answers for allowed origins, errors and 429s included", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const headers = { origin: ORIGIN, "x-forwarded-for": newClient() }
        const ok = yield* get(`${gateway}/api/v1/agents`, { headers })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.headers.get("access-control-allow-origin"), ORIGIN)
        assert.strictEqual(ok.headers.get("vary"), "Origin")
        assert.includeMembers(
          ok.headers.get("access-control-expose-headers")!.split(", "),
          ["x-request-id", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]
        )
        const unrouted = yield* get(`${gateway}/api/v1/nowhere`, { headers })
        assert.deepStrictEqual([unrouted.status, unrouted.headers.get("access-control-allow-origin")], [404, ORIGIN])
        for (let i = 0; i < 3; i++) yield* get(`${gateway}/api/v1/agents`, { headers })
        const limited = yield* get(`${gateway}/api/v1/agents`, { headers })
        assert.deepStrictEqual([limited.status, limited.headers.get("access-control-allow-origin")], [429, ORIGIN])
        const refused = yield* get(`${gateway}/api/v1/agents`, {
          headers: { origin: "https://evil.example", "x-forwarded-for": newClient() }
        })
        assert.strictEqual(refused.status, 200, "the request is served; the browser keeps the answer from the page")
        assert.isNull(refused.headers.get("access-control-allow-origin"))
        assert.strictEqual(refused.headers.get("vary"), "Origin")
      }))
  })

  const open: ProtectionOptions = {
    ...protection,
    apiKeyRate: undefined,
    ipRate: undefined,
    trustedProxyHops: 0,
    corsOrigins: "*"
  }
  layer(gatewayInFrontOfUpstream(open), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("with CORS_ALLOWED_ORIGINS=*: any origin, no Vary; with rate limits off: no RateLimit headers", () =>
      Effect.gen(function*() {
        const gateway = yield* GatewayUrl
        const preflight = yield* request("OPTIONS", `${gateway}/api/v1/agents`, {
          headers: { origin: "https://anywhere.example", "access-control-request-method": "DELETE" }
        })
        assert.strictEqual(preflight.status, 204)
        assert.strictEqual(preflight.headers.get("access-control-allow-origin"), "*")
        assert.isNull(preflight.headers.get("vary"))
        for (let i = 0; i < 20; i++) {
          const reply = yield* get(`${gateway}/api/v1/agents`, {
            token: generateApiKey(),
            headers: { origin: "https://anywhere.example" }
          })
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(reply.headers.get("access-control-allow-origin"), "*")
          assert.isNull(reply.headers.get("ratelimit-limit"))
        }
      }))
  })

  const noCors: ProtectionOptions = { ...open, corsOrigins: undefined }
  layer(gatewayInFrontOfUpstream(noCors), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect(
      "without CORS_ALLOWED_ORIGINS: no CORS headers at all, and OPTIONS goes to the service like any method",
      () =>
        Effect.gen(function*() {
          const gateway = yield* GatewayUrl
          const preflight = yield* request("OPTIONS", `${gateway}/api/v1/agents?nocors=1`, {
            headers: { origin: ORIGIN, "access-control-request-method": "POST" }
          })
          assert.isNull(preflight.headers.get("access-control-allow-origin"))
          assert.isNull(preflight.headers.get("access-control-allow-methods"))
          assert.strictEqual(yield* reachedUpstream("/api/v1/agents?nocors=1"), 1)
          const reply = yield* get(`${gateway}/api/v1/agents`, { headers: { origin: ORIGIN } })
          assert.strictEqual(reply.status, 200)
          assert.isNull(reply.headers.get("access-control-allow-origin"))
          assert.isNull(reply.headers.get("vary"))
        })
    )
  })
})

// ---------------------------------------------------------------------------
// In front of the real services
// ---------------------------------------------------------------------------

/** Enough of a vector store to create knowledge bases and upload documents (nothing is ingested). */
const NoopVectorStore = Layer.succeed(VectorStore, {
  ensureCollection: () => Effect.void,
  dropCollection: () => Effect.void,
  collectionExists: () => Effect.succeed(true),
  upsert: () => Effect.void,
  deleteDocumentChunks: () => Effect.void,
  query: () => Effect.succeed([]),
  count: () => Effect.succeed(0),
  ids: () => Effect.succeed([]),
  ping: Effect.succeed(true)
})

const multipart = (files: ReadonlyArray<{ readonly name: string; readonly content: Buffer }>) => {
  const boundary = "----protection-test-boundary"
  const parts = files.flatMap((f) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\nContent-Type: ` +
        `text/plain\r\n\r\n`
    ),
    f.content,
    Buffer.from("\r\n")
  ])
  return {
    body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`
  }
}

const countRows = (table: "contacts" | "kb_documents", column: string, id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql(table)} WHERE ${sql(column)} = ${id}`.pipe(
        Effect.map(([r]) => Number(r!.n)),
        Effect.orDie
      )
  )

describe("gateway protection, in front of the real services", () => {
  const platform = TestPlatform.layer({
    runtime: { knowledge: { vectorStore: NoopVectorStore } },
    protection: {
      apiKeyRate: { perSecond: 0.05, burst: 3 },
      ipRate: { perSecond: 100, burst: 100 },
      maxUploadBytes: 2 * MiB,
      corsOrigins: [ORIGIN]
    }
  })
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect(
      "rate limits a real API key; its other keys and the dashboard session go on; a revoked key is refused as before",
      () =>
        Effect.gen(function*() {
          const { gateway } = yield* TestPlatform.TestPlatformUrls
          const account = yield* signup(gateway)
          const first = yield* createKey(gateway, account.token)
          const second = yield* createKey(gateway, account.token)
          for (let i = 0; i < 3; i++) {
            assert.strictEqual((yield* get(`${gateway}/profile`, { token: first.key })).status, 200)
          }
          const refused = yield* get(`${gateway}/profile`, { token: first.key, headers: { origin: ORIGIN } })
          rateLimited(refused, 20)
          assert.strictEqual(refused.headers.get("access-control-allow-origin"), ORIGIN)
          assert.strictEqual((yield* get(`${gateway}/profile`, { token: second.key })).status, 200)
          assert.strictEqual((yield* get(`${gateway}/profile`, { token: account.token })).status, 200)
          assert.strictEqual((yield* del(`${gateway}/api-keys/${second.id}`, { token: account.token })).status, 204)
          const revoked = yield* get(`${gateway}/profile`, { token: second.key })
          assert.deepStrictEqual([revoked.status, revoked.body.error.code], [401, "INVALID_API_KEY"])
        })
    )

    it.effect("refuses over-limit bodies with 413 and writes nothing; under the limit, uploads are accepted", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const account = yield* signup(gateway)
        const auth = { authorization: `Bearer ${account.token}` }
        const list = yield* post(`${gateway}/contact-lists`, { token: account.token, json: { name: "Protected" } })
        assert.strictEqual(list.status, 201, list.text)

        // a CSV upload streamed (chunked) past the route's limit: 413, the service's request aborted
        const rows = (n: number, from = 0) =>
          Array.from({ length: n }, (_, i) => `+1415555${String(from + i).padStart(4, "0")},${"x".repeat(40)}`)
        const big = multipart([{
          name: "contacts.csv",
          content: Buffer.from(["phone,notes", ...rows(500)].join("\n") + "x".repeat(3 * MiB))
        }])
        for (const chunked of [true, false]) {
          const reply = yield* send(`${gateway}/contact-lists/${list.body.id}/upload`, {
            body: big.body,
            chunked,
            headers: { ...auth, "content-type": big.contentType }
          })
          assert.strictEqual(reply.status, 413, reply.error ?? reply.text)
          assert.strictEqual(reply.body.error.code, "PAYLOAD_TOO_LARGE")
        }
        // bulk contacts as JSON, chunked past the limit
        const contacts = Array.from(
          { length: 500 },
          (_, i) => ({ phoneNumber: `+1415556${String(i).padStart(4, "0")}`, metadata: { note: "y".repeat(5000) } })
        )
        const bulk = yield* send(`${gateway}/contact-lists/${list.body.id}/contacts/bulk`, {
          body: Buffer.from(JSON.stringify({ contacts })),
          chunked: true,
          headers: { ...auth, "content-type": "application/json" }
        })
        assert.strictEqual(bulk.status, 413, bulk.error ?? bulk.text)
        yield* Effect.sleep("200 millis")
        assert.strictEqual(yield* countRows("contacts", "contact_list_id", list.body.id), 0, "nothing written")

        const small = multipart([{
          name: "contacts.csv",
          content: Buffer.from(["phone", ...rows(10).map((r) => r.split(",")[0])].join("\n"))
        }])
        const accepted = yield* send(`${gateway}/contact-lists/${list.body.id}/upload`, {
          body: small.body,
          chunked: true,
          headers: { ...auth, "content-type": small.contentType }
        })
        assert.deepStrictEqual([accepted.status, accepted.body?.imported], [200, 10], accepted.text)

        // knowledge-base files: over the (lowered) 2 MiB ceiling refused, nothing stored; under it stored
        const kb = yield* post(`${gateway}/knowledge-bases`, {
          token: account.token,
          json: { kbKey: "protected", kbName: "Protected" }
        })
        assert.strictEqual(kb.status, 201, kb.text)
        const files = multipart(["a", "b", "c"].map((c) => ({ name: `${c}.txt`, content: Buffer.alloc(900 * KiB, c) })))
        const tooMany = yield* send(`${gateway}/knowledge-bases/${kb.body.id}/documents/upload`, {
          body: files.body,
          chunked: true,
          headers: { ...auth, "content-type": files.contentType }
        })
        assert.strictEqual(tooMany.status, 413, tooMany.error ?? tooMany.text)
        yield* Effect.sleep("200 millis")
        assert.strictEqual(yield* countRows("kb_documents", "kb_id", kb.body.id), 0, "nothing stored")
        const one = multipart([{ name: "a.txt", content: Buffer.alloc(900 * KiB, "a") }])
        const stored = yield* send(`${gateway}/knowledge-bases/${kb.body.id}/documents/upload`, {
          body: one.body,
          chunked: true,
          headers: { ...auth, "content-type": one.contentType }
        })
        assert.strictEqual(stored.status, 201, stored.error ?? stored.text)
        assert.strictEqual(yield* countRows("kb_documents", "kb_id", kb.body.id), 1)
      }))

    it.effect("the services refuse a declared JSON body over their own ceiling with 413, never 400 or 500", () =>
      Effect.gen(function*() {
        const { comms, campaign } = yield* TestPlatform.TestPlatformUrls
        const account = yield* signup(yield* Effect.map(TestPlatform.TestPlatformUrls, (u) => u.gateway))
        for (const url of [`${comms}/agents`, `${campaign}/contact-lists`]) {
          const reply = yield* send(url, {
            body: Buffer.alloc(MAX_READ_BODY_BYTES + 1, 32),
            headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" }
          })
          assert.strictEqual(reply.status, 413, reply.error ?? reply.text)
          assert.strictEqual(reply.body.error.code, "PAYLOAD_TOO_LARGE")
        }
        // streamed past it, the body stops being read and the connection is dropped: no 400, no 500
        const chunked = yield* send(`${comms}/agents`, {
          body: Buffer.alloc(MAX_READ_BODY_BYTES + MiB, 32),
          chunked: true,
          headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" }
        })
        assert.include([0, 413], chunked.status, chunked.text)
        // an ordinary body is read as before
        const agents = yield* get(`${comms}/agents`, { token: account.token })
        assert.strictEqual(agents.status, 200)
      }))
  })
})

describe("protection configuration", () => {
  const load = (env: Record<string, string>) =>
    Config.load.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

  it.effect("defaults to the deployed protection: rate limits on, body limits, no CORS", () =>
    Effect.gen(function*() {
      const config = yield* load({})
      assert.deepStrictEqual(config.protection, defaultProtection)
    }))

  it.effect("reads every variable; a rate of 0 turns that limit off", () =>
    Effect.gen(function*() {
      const config = yield* load({
        RATE_LIMIT_PER_SECOND: "0",
        RATE_LIMIT_BURST: "7",
        RATE_LIMIT_IP_PER_SECOND: "2.5",
        RATE_LIMIT_IP_BURST: "30",
        TRUSTED_PROXY_HOPS: "2",
        MAX_BODY_SIZE: "512 KiB",
        MAX_UPLOAD_SIZE: "20971520",
        CORS_ALLOWED_ORIGINS: " https://App.Example.com/ , http://localhost:5173"
      })
      assert.deepStrictEqual(config.protection, {
        apiKeyRate: undefined,
        ipRate: { perSecond: 2.5, burst: 30 },
        trustedProxyHops: 2,
        maxBodyBytes: 512 * KiB,
        maxUploadBytes: 20 * MiB,
        corsOrigins: ["https://app.example.com", "http://localhost:5173"]
      })
      assert.strictEqual((yield* load({ CORS_ALLOWED_ORIGINS: "*" })).protection.corsOrigins, "*")
    }))

  it.effect("refuses bad values, naming each variable", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(load({
        RATE_LIMIT_PER_SECOND: "-1",
        RATE_LIMIT_BURST: "0",
        TRUSTED_PROXY_HOPS: "x",
        MAX_BODY_SIZE: "64 MiB",
        MAX_UPLOAD_SIZE: "10 MB",
        CORS_ALLOWED_ORIGINS: "https://app.example.com/path"
      }))
      assert.isTrue(Exit.isFailure(exit))
      const problems = Exit.isFailure(exit)
        ? (exit.cause as Cause.Fail<Config.InvalidConfiguration>).error.problems.join("\n")
        : ""
      for (
        const name of [
          "RATE_LIMIT_PER_SECOND",
          "RATE_LIMIT_BURST",
          "TRUSTED_PROXY_HOPS",
          "MAX_BODY_SIZE",
          "MAX_UPLOAD_SIZE",
          "CORS_ALLOWED_ORIGINS"
        ]
      ) {
        assert.include(problems, name)
      }
    }))

  it.effect("parses sizes and origins", () =>
    Effect.sync(() => {
      assert.strictEqual(Config.parseSize("1 MiB"), MiB)
      assert.strictEqual(Config.parseSize("101MiB"), 101 * MiB)
      assert.strictEqual(Config.parseSize("2 gib"), 2 * 1024 * MiB)
      assert.strictEqual(Config.parseSize("4096"), 4096)
      assert.isUndefined(Config.parseSize("1.5 MiB"))
      assert.isUndefined(Config.parseSize("1 MB"), "decimal units are ambiguous: refused")
      assert.deepStrictEqual(Config.parseOrigins("*"), Either.right("*"))
      assert.isTrue(Either.isLeft(Config.parseOrigins("app.example.com")))
      assert.isTrue(Either.isLeft(Config.parseOrigins("ftp://app.example.com")))
      assert.isTrue(Either.isLeft(Config.parseOrigins("https://app.example.com?x=1")))
      assert.isTrue(Either.isLeft(Config.parseOrigins(" , ")))
    }))
})
