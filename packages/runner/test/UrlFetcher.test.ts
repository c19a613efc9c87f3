import { assert, describe, it } from "@effect/vitest"
import {
  checkUrl,
  defaultUrlPolicy,
  fetchUrl,
  isPublicAddress,
  parseAllowList,
  UrlFetchFailed,
  UrlNotAllowed,
  type UrlPolicy
} from "@voiceagent/runner/Knowledge/UrlFetcher"
import { Deferred, Effect, Either, Fiber } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as zlib from "node:zlib"

const PAGE = "<html><body><h1>Opening hours</h1><p>Monday to Friday, 9 to 17.</p></body></html>"

interface Loopback {
  readonly base: string
  readonly port: number
  /** Paths requested, in order. */
  readonly hits: Array<string>
  readonly headers: Array<http.IncomingHttpHeaders>
}

/** A real HTTP server on 127.0.0.1 and a free port, closed with the test's scope. */
const loopbackServer = (handle: (req: http.IncomingMessage, res: http.ServerResponse, server: Loopback) => void) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly loopback: Loopback }>((resume) => {
      const hits: Array<string> = []
      const headers: Array<http.IncomingHttpHeaders> = []
      let loopback: Loopback
      const server = http.createServer((req, res) => {
        hits.push(req.url ?? "")
        headers.push(req.headers)
        handle(req, res, loopback)
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        loopback = { base: `http://127.0.0.1:${port}`, port, hits, headers }
        resume(Effect.succeed({ server, loopback }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ loopback }) => loopback))

const routes = (req: http.IncomingMessage, res: http.ServerResponse, server: Loopback) => {
  const path = new URL(req.url ?? "/", server.base).pathname
  switch (path) {
    case "/page":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE)
      return
    case "/hop":
      res.writeHead(302, { location: "/page" }).end()
      return
    case "/hop-absolute":
      res.writeHead(301, { location: `${server.base}/hop` }).end()
      return
    case "/to-private":
      res.writeHead(302, { location: "http://192.168.1.1/admin" }).end()
      return
    case "/to-loopback":
      res.writeHead(307, { location: `http://127.0.0.1:${server.port}/page` }).end()
      return
    case "/to-file":
      res.writeHead(302, { location: "file:///etc/passwd" }).end()
      return
    case "/loop":
      res.writeHead(302, { location: "/loop" }).end()
      return
    case "/missing":
      res.writeHead(404, { "content-type": "text/plain" }).end("not here")
      return
    case "/busy":
      res.writeHead(503, { "retry-after": "1" }).end()
      return
    case "/limited":
      res.writeHead(429).end()
      return
    case "/big": {
      // chunked, no Content-Length: the limit is enforced while reading
      res.writeHead(200, { "content-type": "text/plain" })
      const chunk = "x".repeat(16 * 1024)
      for (let i = 0; i < 16; i++) res.write(chunk)
      res.end()
      return
    }
    case "/big-declared":
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(1024 * 1024) })
      res.write("partial")
      return
    case "/gzip":
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(
        zlib.gzipSync("Compressed text, unpacked.")
      )
      return
    case "/gzip-bomb":
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end(
        zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024))
      )
      return
    case "/pdf":
      res.writeHead(200, { "content-type": "application/pdf" }).end(Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]))
      return
    case "/silent":
    case "/stall-body":
      if (path === "/stall-body") {
        res.writeHead(200, { "content-type": "text/plain" })
        res.write("first bytes")
      }
      // never ends: the client's deadline has to act
      return
    default:
      res.writeHead(500).end()
  }
}

const loopbackPolicy: UrlPolicy = { ...defaultUrlPolicy, allow: ["127.0.0.1"] }

const notAllowed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.flip(effect).pipe(
    Effect.map((error) => {
      assert.instanceOf(error, UrlNotAllowed)
      return error as UrlNotAllowed
    })
  )

const fetchFailed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.flip(effect).pipe(
    Effect.map((error) => {
      assert.instanceOf(error, UrlFetchFailed)
      return error as UrlFetchFailed
    })
  )

describe("Knowledge/UrlFetcher", () => {
  describe("isPublicAddress", () => {
    it("only globally routable unicast addresses are public", () => {
      const cases: Array<[string, boolean]> = [
        ["8.8.8.8", true],
        ["1.1.1.1", true],
        ["93.184.216.34", true],
        ["2001:4860:4860::8888", true],
        ["2606:4700:4700::1111", true],
        ["64:ff9b::808:808", true], // NAT64 of 8.8.8.8
        ["127.0.0.1", false],
        ["127.255.0.9", false],
        ["10.1.2.3", false],
        ["172.16.0.1", false],
        ["172.31.255.254", false],
        ["192.168.1.1", false],
        ["169.254.169.254", false],
        ["100.64.0.1", false],
        ["0.0.0.0", false],
        ["0.1.2.3", false],
        ["255.255.255.255", false],
        ["224.0.0.251", false],
        ["240.0.0.1", false],
        ["192.0.2.10", false],
        ["198.18.0.1", false],
        ["::", false],
        ["::1", false],
        ["[::1]", false],
        ["fc00::1", false],
        ["fd12:3456::1", false],
        ["fe80::1", false],
        ["fe80::1%eth0", false],
        ["ff02::1", false],
        ["2001:db8::1", false],
        ["::ffff:127.0.0.1", false],
        ["::ffff:10.0.0.1", false],
        ["::ffff:8.8.8.8", true],
        ["::7f00:1", false], // IPv4-compatible 127.0.0.1
        ["64:ff9b::7f00:1", false], // NAT64 of 127.0.0.1
        ["2002:7f00:1::1", false], // 6to4
        ["localhost", false],
        ["not an address", false],
        ["", false]
      ]
      for (const [address, expected] of cases) assert.strictEqual(isPublicAddress(address), expected, address)
    })
  })

  describe("parseAllowList", () => {
    it("accepts addresses, CIDR ranges and hostnames, separated by commas or spaces", () => {
      assert.deepStrictEqual(
        parseAllowList(" 127.0.0.1, 10.0.0.0/8 ,::1  [fd00::1] fd00::/8,Intranet.Example., wiki_internal "),
        Either.right(["127.0.0.1", "10.0.0.0/8", "::1", "[fd00::1]", "fd00::/8", "intranet.example", "wiki_internal"])
      )
      assert.deepStrictEqual(parseAllowList(""), Either.right([]))
      assert.deepStrictEqual(parseAllowList(" , "), Either.right([]))
    })

    it("refuses invalid entries, naming them", () => {
      for (
        const entry of [
          "10.0.0.0/33",
          "300.1.1.1",
          "*.example.com",
          "http://intranet",
          "intranet:8080",
          "10.1",
          "::1/129",
          "host!name",
          "-x.example"
        ]
      ) {
        const result = parseAllowList(`127.0.0.1, ${entry}`)
        assert.isTrue(Either.isLeft(result), entry)
        if (Either.isLeft(result)) assert.include(result.left, `"${entry.split(" ")[0]}"`)
      }
    })
  })

  describe("checkUrl", () => {
    it.effect("refuses other schemes, credentials and invalid URLs", () =>
      Effect.gen(function*() {
        const cases: Array<[string, UrlNotAllowed["reason"]]> = [
          ["ftp://files.example.com/a.txt", "SCHEME"],
          ["file:///etc/passwd", "SCHEME"],
          ["javascript:alert(1)", "SCHEME"],
          ["data:text/plain,hello", "SCHEME"],
          ["http://user:pass@8.8.8.8/", "CREDENTIALS"],
          ["https://user@8.8.8.8/", "CREDENTIALS"],
          ["not a url", "INVALID_URL"],
          ["http://", "INVALID_URL"],
          ["/relative/path", "INVALID_URL"]
        ]
        for (const [url, reason] of cases) {
          assert.strictEqual((yield* notAllowed(checkUrl(url, defaultUrlPolicy))).reason, reason, url)
        }
      }))

    it.effect("refuses literal private addresses without DNS, in every spelling", () =>
      Effect.gen(function*() {
        const urls = [
          "http://10.1.2.3/",
          "http://172.16.0.1/",
          "http://192.168.1.1/",
          "http://169.254.169.254/latest/meta-data/",
          "http://100.64.0.1/",
          "http://0.0.0.0:8080/",
          "http://127.0.0.1:3000/",
          "http://2130706433/", // 127.0.0.1 as one number
          "http://0x7f.1/", // and in hex shorthand
          "http://[::1]/",
          "http://[fc00::1]/",
          "http://[fe80::1]/",
          "http://[::ffff:127.0.0.1]/",
          "http://[::ffff:a9fe:a9fe]/" // 169.254.169.254, mapped
        ]
        for (const url of urls) {
          const error = yield* notAllowed(checkUrl(url, defaultUrlPolicy))
          assert.strictEqual(error.reason, "PRIVATE_ADDRESS", url)
          assert.include(error.message, "KB_URL_ALLOWLIST")
        }
      }))

    it.effect("accepts public literal addresses (checked, not connected to)", () =>
      Effect.gen(function*() {
        const url = yield* checkUrl("https://8.8.8.8/docs?q=1", defaultUrlPolicy)
        assert.strictEqual(url.href, "https://8.8.8.8/docs?q=1")
        assert.strictEqual(
          (yield* checkUrl("http://[2606:4700:4700::1111]/", defaultUrlPolicy)).hostname,
          "[2606:4700:4700::1111]"
        )
      }))

    it.effect("refuses localhost, which resolves to loopback", () =>
      Effect.gen(function*() {
        assert.strictEqual(
          (yield* notAllowed(checkUrl("http://localhost:8080/", defaultUrlPolicy))).reason,
          "PRIVATE_ADDRESS"
        )
        assert.strictEqual(
          (yield* notAllowed(checkUrl("http://LocalHost/", defaultUrlPolicy))).reason,
          "PRIVATE_ADDRESS"
        )
      }))

    it.effect("lets through what the allow-list names: addresses, ranges, hostnames", () =>
      Effect.gen(function*() {
        const policy = (allow: ReadonlyArray<string>): UrlPolicy => ({ ...defaultUrlPolicy, allow })
        yield* checkUrl("http://127.0.0.1:3000/", policy(["127.0.0.1"]))
        yield* checkUrl("http://[::ffff:127.0.0.1]/", policy(["127.0.0.1"]))
        yield* checkUrl("http://10.20.30.40/wiki", policy(["10.0.0.0/8"]))
        yield* checkUrl("http://[::1]:8080/", policy(["::1"]))
        yield* checkUrl("http://[fd00::5]/", policy(["[fd00::5]"]))
        yield* checkUrl("http://localhost:8080/", policy(["LocalHost"]))
        // ranges are exact: a neighbour stays refused, as does another family
        assert.strictEqual(
          (yield* notAllowed(checkUrl("http://10.1.0.1/", policy(["10.0.0.0/16"])))).reason,
          "PRIVATE_ADDRESS"
        )
        assert.strictEqual(
          (yield* notAllowed(checkUrl("http://192.168.1.1/", policy(["10.0.0.0/8", "::1"])))).reason,
          "PRIVATE_ADDRESS"
        )
        assert.strictEqual(
          (yield* notAllowed(checkUrl("http://127.0.0.2/", policy(["127.0.0.1"])))).reason,
          "PRIVATE_ADDRESS"
        )
      }))
  })

  describe("fetchUrl", () => {
    it.scoped("refuses a loopback server unless the allow-list names it, then fetches it", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const refused = yield* notAllowed(fetchUrl(`${server.base}/page`, defaultUrlPolicy))
        assert.strictEqual(refused.reason, "PRIVATE_ADDRESS")
        assert.deepStrictEqual(server.hits, [])

        const fetched = yield* fetchUrl(`${server.base}/page`, loopbackPolicy)
        assert.strictEqual(fetched.status, 200)
        assert.strictEqual(fetched.finalUrl, `${server.base}/page`)
        assert.strictEqual(fetched.contentType, "text/html; charset=utf-8")
        assert.strictEqual(new TextDecoder().decode(fetched.bytes), PAGE)
        assert.strictEqual(server.headers[0]["user-agent"], "voiceagent-kb-fetcher/1.0")
        assert.strictEqual(
          server.headers[0].accept,
          "text/html, text/plain, text/markdown, text/csv, application/pdf;q=0.9, */*;q=0.1"
        )
        assert.isUndefined(server.headers[0].authorization)
      }))

    it.scoped("checks a hostname's addresses when it connects", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        // `localhost` passes the static checks; the lookup hook refuses its loopback address
        const refused = yield* notAllowed(fetchUrl(`http://localhost:${server.port}/page`, defaultUrlPolicy))
        assert.strictEqual(refused.reason, "PRIVATE_ADDRESS")
        assert.deepStrictEqual(server.hits, [])
        // allowed by name, whichever loopback address it resolves to
        const fetched = yield* fetchUrl(`http://localhost:${server.port}/page`, {
          ...defaultUrlPolicy,
          allow: ["localhost"]
        })
        assert.strictEqual(new TextDecoder().decode(fetched.bytes), PAGE)
      }))

    it.scoped("follows redirects, relative and absolute, reporting the final URL", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const fetched = yield* fetchUrl(`${server.base}/hop-absolute`, loopbackPolicy)
        assert.strictEqual(fetched.finalUrl, `${server.base}/page`)
        assert.strictEqual(new TextDecoder().decode(fetched.bytes), PAGE)
        assert.deepStrictEqual(server.hits, ["/hop-absolute", "/hop", "/page"])
      }))

    it.scoped("checks every redirect hop again", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const toPrivate = yield* notAllowed(fetchUrl(`${server.base}/to-private`, loopbackPolicy))
        assert.strictEqual(toPrivate.reason, "PRIVATE_ADDRESS")
        assert.include(toPrivate.message, "192.168.1.1")
        const toFile = yield* notAllowed(fetchUrl(`${server.base}/to-file`, loopbackPolicy))
        assert.strictEqual(toFile.reason, "SCHEME")
        // a hostname allowed by name does not carry its allowance to the next host
        const toLoopback = yield* notAllowed(
          fetchUrl(`http://localhost:${server.port}/to-loopback`, { ...defaultUrlPolicy, allow: ["localhost"] })
        )
        assert.strictEqual(toLoopback.reason, "PRIVATE_ADDRESS")
        assert.deepStrictEqual(server.hits, ["/to-private", "/to-file", "/to-loopback"])
      }))

    it.scoped("fails after maxRedirects", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const error = yield* fetchFailed(fetchUrl(`${server.base}/loop`, { ...loopbackPolicy, maxRedirects: 3 }))
        assert.match(error.message, /Too many redirects \(more than 3\)/)
        assert.isFalse(error.retryable)
        assert.strictEqual(server.hits.length, 4)
        // within the limit, a redirect chain is fine
        yield* fetchUrl(`${server.base}/hop-absolute`, { ...loopbackPolicy, maxRedirects: 2 })
        const one = yield* fetchFailed(fetchUrl(`${server.base}/hop-absolute`, { ...loopbackPolicy, maxRedirects: 1 }))
        assert.match(one.message, /Too many redirects/)
      }))

    it.scoped("caps the body at maxBytes, declared or not, compressed or not", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const policy = { ...loopbackPolicy, maxBytes: 100_000 }
        for (const path of ["/big", "/big-declared", "/gzip-bomb"]) {
          const error = yield* fetchFailed(fetchUrl(`${server.base}${path}`, policy))
          assert.match(error.message, /too large \(more than 100000 bytes\)/, path)
          assert.isFalse(error.retryable)
          assert.isUndefined(error.status)
        }
        // at the limit exactly, it passes
        const exact = yield* fetchUrl(`${server.base}/big`, { ...loopbackPolicy, maxBytes: 16 * 16 * 1024 })
        assert.strictEqual(exact.bytes.length, 16 * 16 * 1024)
      }))

    it.scoped("decompresses gzip and returns binary bodies untouched", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const gzip = yield* fetchUrl(`${server.base}/gzip`, loopbackPolicy)
        assert.strictEqual(new TextDecoder().decode(gzip.bytes), "Compressed text, unpacked.")
        const pdf = yield* fetchUrl(`${server.base}/pdf`, loopbackPolicy)
        assert.strictEqual(pdf.contentType, "application/pdf")
        assert.deepStrictEqual(Array.from(pdf.bytes), [0x25, 0x50, 0x44, 0x46, 0x00, 0xff])
      }))

    it.scoped("fails with the status: 404 not retryable, 503 and 429 retryable", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        const missing = yield* fetchFailed(fetchUrl(`${server.base}/missing`, loopbackPolicy))
        assert.strictEqual(missing.status, 404)
        assert.isFalse(missing.retryable)
        assert.include(missing.message, "404")
        const busy = yield* fetchFailed(fetchUrl(`${server.base}/busy`, loopbackPolicy))
        assert.strictEqual(busy.status, 503)
        assert.isTrue(busy.retryable)
        const limited = yield* fetchFailed(fetchUrl(`${server.base}/limited`, loopbackPolicy))
        assert.strictEqual(limited.status, 429)
        assert.isTrue(limited.retryable)
      }))

    it.scoped("times out a server that never answers, or stops sending, retryable", () =>
      Effect.gen(function*() {
        const server = yield* loopbackServer(routes)
        for (const path of ["/silent", "/stall-body"]) {
          const started = Date.now()
          const error = yield* fetchFailed(fetchUrl(`${server.base}${path}`, { ...loopbackPolicy, timeoutMillis: 300 }))
          const elapsed = Date.now() - started
          assert.isTrue(error.retryable)
          assert.match(error.message, /did not answer within 300 ms/)
          assert.isAtLeast(elapsed, 280, path)
          assert.isBelow(elapsed, 3_000, path)
        }
      }))

    it.effect("fails retryable when nothing listens", () =>
      Effect.gen(function*() {
        const port = yield* Effect.scoped(Effect.map(loopbackServer(routes), (s) => s.port))
        const error = yield* fetchFailed(fetchUrl(`http://127.0.0.1:${port}/page`, loopbackPolicy))
        assert.isTrue(error.retryable)
        assert.include(error.message, "ECONNREFUSED")
        assert.isUndefined(error.status)
      }))

    it.scoped("interrupting the fetch closes the connection", () =>
      Effect.gen(function*() {
        const arrived = yield* Deferred.make<void>()
        const closed = yield* Deferred.make<void>()
        const server = yield* loopbackServer((req) => {
          Deferred.unsafeDone(arrived, Effect.void)
          req.socket.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        })
        const fiber = yield* Effect.fork(fetchUrl(`${server.base}/silent`, loopbackPolicy))
        yield* Deferred.await(arrived)
        yield* Fiber.interrupt(fiber)
        yield* Deferred.await(closed)
      }))
  })
})
