import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { assert, describe, it } from "@effect/vitest"
import { requestIdFor, withRequestContext } from "@voiceagent/http/RequestContext"
import { Effect, HashMap, Logger } from "effect"

const requestFor = (url: string, headers: Record<string, string> = {}) =>
  HttpServerRequest.fromWeb(new Request(`http://local${url}`, { headers }))

const run = (app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, any>, url = "/x", headers = {}) =>
  Effect.gen(function*() {
    const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
    const logger = Logger.make(({ annotations, message }) => {
      lines.push({ message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
    })
    const response = yield* withRequestContext("test")(app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, requestFor(url, headers)),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger))
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse>
    const body = response.body._tag === "Uint8Array" && response.body.contentType === "application/json"
      ? JSON.parse(new TextDecoder().decode(response.body.body))
      : undefined
    return { response, body, lines }
  })

describe("request context", () => {
  it.effect("answers a defect with a generic 500 body and logs the cause with the request id", () =>
    Effect.gen(function*() {
      const { body, lines, response } = yield* run(Effect.die(new Error("database exploded")))
      assert.strictEqual(response.status, 500)
      assert.deepStrictEqual(Object.keys(body.error).sort(), ["code", "message", "requestId"])
      assert.strictEqual(body.error.code, "INTERNAL_ERROR")
      assert.strictEqual(body.error.message, "Internal server error")
      assert.notInclude(JSON.stringify(body), "database exploded")
      assert.strictEqual(response.headers["x-request-id"], body.error.requestId)
      const failure = lines.find((l) => String(l.message).includes("Unhandled failure"))
      assert.isDefined(failure)
      assert.strictEqual(failure!.annotations["requestId"], body.error.requestId)
    }))

  it.effect("reuses a safe incoming request id and replaces an unsafe one", () =>
    Effect.gen(function*() {
      const ok = yield* run(Effect.succeed(HttpServerResponse.text("ok")), "/x", { "x-request-id": "gateway-id-123" })
      assert.strictEqual(ok.response.headers["x-request-id"], "gateway-id-123")
      assert.match(requestIdFor("bad id\nwith newline"), /^[0-9a-f-]{36}$/)
      assert.match(requestIdFor("short"), /^[0-9a-f-]{36}$/)
      assert.match(requestIdFor("a\"quote\" <script>"), /^[0-9a-f-]{36}$/)
    }))

  it.effect("writes one access line with method, path (no query), status and duration", () =>
    Effect.gen(function*() {
      const { lines } = yield* run(Effect.succeed(HttpServerResponse.empty({ status: 204 })), "/api/v1/things?secret=1")
      const access = lines.filter((l) => String(l.message).includes("request"))
      assert.strictEqual(access.length, 1)
      assert.deepInclude(access[0]!.annotations, {
        method: "GET",
        path: "/api/v1/things",
        status: 204,
        service: "test"
      })
      assert.isNumber(access[0]!.annotations["durationMs"])
    }))
})
