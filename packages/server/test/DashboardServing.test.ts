import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { assert, describe, it, layer } from "@effect/vitest"
import { DASHBOARD_ROUTES, makeDashboard } from "@voiceagent/http/Gateway/Dashboard"
import { serveGateway } from "@voiceagent/http/Gateway/Gateway"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import { Context, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as zlib from "node:zlib"

// How the gateway serves the dashboard's bundle (packages/http/src/Gateway/Dashboard.ts), over real
// sockets: index.html for / and every client-side route, the hashed assets immutable and gzipped,
// ETags, nothing outside the bundle however the path is spelled, and the API's paths left to the proxy.

const dist = new URL("../../web/dist/", import.meta.url).pathname

class GatewayUrl extends Context.Tag("test/DashboardGatewayUrl")<GatewayUrl, string>() {}

const Gateway = Layer.effect(
  GatewayUrl,
  Effect.flatMap(ServiceDirectory, (d) => Effect.map(d.lookup("gateway"), Option.getOrThrow))
).pipe(
  Layer.provideMerge(serveGateway({ host: "127.0.0.1", port: 0 })),
  // nothing listens upstream: an API path is the proxy's to answer (502), never the dashboard's
  Layer.provideMerge(
    ServiceDirectory.make({
      comms: "http://127.0.0.1:1",
      campaign: "http://127.0.0.1:1",
      "platform-core": "http://127.0.0.1:1"
    })
  )
)

interface Raw {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

/** A request with its path sent exactly as given (fetch and URL would resolve `..`). */
const raw = (base: string, path: string, headers: Record<string, string> = {}) =>
  Effect.async<Raw>((resume) => {
    const url = new URL(base)
    const request = http.request({ host: url.hostname, port: url.port, path, method: "GET", headers }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(
          Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })
        ))
    })
    request.on("error", (error) => resume(Effect.die(error)))
    request.end()
  })

const assets = () => fs.readdirSync(`${dist}assets`)

describe("the gateway serves the dashboard", () => {
  it("has a bundle to serve: npm install builds packages/web/dist", () => {
    assert.isTrue(
      fs.existsSync(`${dist}index.html`),
      "packages/web/dist is missing: `npm install` builds it (packages/web prepare)"
    )
    assert.isTrue(assets().some((name) => /^index-[\w-]+\.js$/.test(name)), "a hashed script")
    assert.isTrue(
      assets().some((name) => /^MicrophoneWorklet-[\w-]+\.js$/.test(name)),
      "the microphone's AudioWorklet module"
    )
  })

  layer(Gateway, { timeout: 60_000 })((it) => {
    it.effect("index.html at / and at every client-side route: HTML, no-cache, an ETag that answers 304", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const index = fs.readFileSync(`${dist}index.html`)
        for (const route of DASHBOARD_ROUTES) {
          const path = route.replace(":id", "0d5a1c52-7f3e-4a43-9d0c-9a4c3b1f2e11")
          const reply = yield* raw(base, path)
          assert.strictEqual(reply.status, 200, path)
          assert.strictEqual(reply.headers["content-type"], "text/html; charset=utf-8", path)
          assert.strictEqual(reply.headers["cache-control"], "no-cache", path)
          assert.deepStrictEqual(reply.body, index, path)
        }
        const first = yield* raw(base, "/")
        const again = yield* raw(base, "/", { "if-none-match": String(first.headers.etag) })
        assert.deepStrictEqual([again.status, again.body.length], [304, 0])
        // the security headers every answer carries
        assert.strictEqual(first.headers["x-content-type-options"], "nosniff")
        assert.strictEqual(first.headers["x-frame-options"], "DENY")
      }))

    it.effect("hashed assets: their types, immutable for a year, gzip when accepted and identical once inflated", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        for (const name of assets()) {
          const file = fs.readFileSync(`${dist}assets/${name}`)
          const plain = yield* raw(base, `/assets/${name}`)
          assert.strictEqual(plain.status, 200, name)
          assert.strictEqual(plain.headers["cache-control"], "public, max-age=31536000, immutable", name)
          assert.isUndefined(plain.headers["content-encoding"], name)
          assert.deepStrictEqual(plain.body, file, name)
          assert.strictEqual(
            plain.headers["content-type"],
            name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
            name
          )
          const gzipped = yield* raw(base, `/assets/${name}`, { "accept-encoding": "gzip, deflate, br" })
          if (file.length <= 1024) {
            // a file this small (the microphone's AudioWorklet module) is sent as it is: gzip saves nothing
            assert.isUndefined(gzipped.headers["content-encoding"], name)
            assert.deepStrictEqual(gzipped.body, file, name)
            continue
          }
          assert.strictEqual(gzipped.headers["content-encoding"], "gzip", name)
          assert.strictEqual(gzipped.headers.vary, "accept-encoding", name)
          assert.isBelow(gzipped.body.length, file.length, name)
          assert.deepStrictEqual(zlib.gunzipSync(gzipped.body), file, name)
        }
        const missing = yield* raw(base, "/assets/index-nothere.js")
        assert.strictEqual(missing.status, 404)
        assert.strictEqual(JSON.parse(missing.body.toString()).error.code, "NOT_FOUND")
      }))

    it.effect("nothing outside the bundle, however the path is spelled", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        const secret = fs.readFileSync(new URL("../../../package.json", import.meta.url)).toString()
        for (
          const path of [
            "/assets/../../package.json",
            "/assets/../../../package.json",
            "/assets/%2e%2e/%2e%2e/package.json",
            "/assets/..%2f..%2f..%2fpackage.json",
            "/assets/%2e%2e%5c%2e%2e%5cpackage.json",
            "/assets//etc/passwd",
            "/assets/..\\..\\package.json"
          ]
        ) {
          const reply = yield* raw(base, path)
          assert.notInclude(reply.body.toString(), secret.slice(0, 60), path)
          assert.notInclude(reply.body.toString(), "root:x:0:0", path)
          assert.isTrue(reply.status === 404 || reply.status === 400, `${path} → ${reply.status}`)
        }
      }))

    it.effect("the API's paths stay the proxy's: JSON, never the dashboard's HTML", () =>
      Effect.gen(function*() {
        const base = yield* GatewayUrl
        for (const path of ["/api/v1/agents", "/api/v1/nothing", "/nothing-here"]) {
          const reply = yield* raw(base, path)
          assert.match(String(reply.headers["content-type"]), /^application\/json/, path)
          assert.notInclude(reply.body.toString(), "<!doctype html>", path)
        }
      }))
  })

  it.effect("no bundle: 503 saying what to run; the bundle is looked for again on the next request", () =>
    Effect.gen(function*() {
      const directory = fs.mkdtempSync(`${os.tmpdir()}/dashboard-`)
      const handler = makeDashboard(directory)
      const ask = (url: string) =>
        handler.pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request(url))),
          Effect.flatMap((response) =>
            Effect.promise(() =>
              HttpServerResponse.toWeb(response).text().then((text) => [response.status, text] as const)
            )
          )
        )
      const [status, text] = yield* ask("http://gateway/")
      assert.strictEqual(status, 503)
      assert.include(text, "npm install")
      fs.writeFileSync(`${directory}/index.html`, "<!doctype html><title>built</title>")
      const [built, page] = yield* ask("http://gateway/agents")
      assert.deepStrictEqual([built, page], [200, "<!doctype html><title>built</title>"])
      fs.rmSync(directory, { recursive: true, force: true })
    }))
})
