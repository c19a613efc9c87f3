import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Duration, Effect } from "effect"
import { rawRequest, requestHead, tableCounts } from "./Hostile.js"
import { callReady, get, post } from "./Http.js"

// Slow and stalled clients against every server, through the gateway and straight to a service.
// Real time: the servers' own timeouts are what is tested, set short here (1 s, 1 s, 4 s). Each
// connection is cut by the server, never by the test (which gives up only after 20 s).

const GIVE_UP = 20_000

describe("slow clients", () => {
  layer(
    TestPlatform.layer({
      httpTimeouts: { headers: Duration.seconds(1), body: Duration.seconds(1), request: Duration.seconds(4) }
    }),
    { timeout: 180_000, excludeTestServices: true }
  )((it) => {
    it.effect("headers that never end: 408 and the connection closed", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        for (const base of [urls.gateway, urls.comms]) {
          const answer = yield* rawRequest(base, [`GET /api/v1/agents HTTP/1.1\r\nhost: x\r\nx-slow: `], {
            stopAfterMs: GIVE_UP
          })
          assert.isBelow(answer.elapsedMs, GIVE_UP, `${base}: the server closed the connection`)
          assert.strictEqual(answer.status, 408, `${base}: ${answer.head}`)
          assert.strictEqual(JSON.parse(answer.body).error.code, "REQUEST_TIMEOUT", answer.body)
        }
      }))

    it.effect(
      "what node refuses by itself is answered in the error body: a body cut short, headers too large, not HTTP",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const ready = yield* callReady(urls.gateway, "PROVIDER_A")
          for (const base of [urls.gateway, urls.comms]) {
            const before = yield* tableCounts
            const body = "{\"name\":\"cut short\""
            // a declared length never reached: the client closes its side of the connection
            const cut = yield* rawRequest(base, [
              requestHead("POST", `${base}/agents`, {
                authorization: `Bearer ${ready.key}`,
                "content-type": "application/json",
                "content-length": String(body.length + 100)
              }) + body
            ], { endAfterSending: true, stopAfterMs: GIVE_UP })
            const huge = yield* rawRequest(
              base,
              [requestHead("GET", `${base}/agents`, { "x-big": "a".repeat(20_000) })],
              { stopAfterMs: GIVE_UP }
            )
            const garbage = yield* rawRequest(base, ["NOT HTTP AT ALL\r\n\r\n"], { stopAfterMs: GIVE_UP })
            for (
              const [answer, status, code] of [[cut, 400, "INVALID_BODY"], [huge, 431, "REQUEST_HEADERS_TOO_LARGE"], [
                garbage,
                400,
                "MALFORMED_REQUEST"
              ]] as const
            ) {
              assert.strictEqual(answer.status, status, `${base}: ${answer.head}`)
              const error = JSON.parse(answer.body).error
              assert.strictEqual(error.code, code, answer.body)
              assert.isString(error.requestId)
              assert.match(answer.head, /connection: close/i)
              assert.match(answer.head, /x-content-type-options: nosniff/i)
            }
            assert.deepStrictEqual(yield* tableCounts, before)
          }
        })
    )

    it.effect("a body that stops arriving: 408 REQUEST_TIMEOUT in the error body, nothing written", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const persona = (yield* get(`${urls.comms}/prompts/personas`, { token: ready.key })).body.items[0]
        const body = JSON.stringify({ name: "never finished", agent_persona_id: persona.id })
        for (const base of [urls.gateway, urls.comms]) {
          const before = yield* tableCounts
          const head = requestHead("POST", `${base}/agents`, {
            authorization: `Bearer ${ready.key}`,
            "content-type": "application/json",
            "content-length": String(body.length + 10)
          })
          const answer = yield* rawRequest(base, [head + body], { stopAfterMs: GIVE_UP })
          assert.isBelow(answer.elapsedMs, GIVE_UP, base)
          assert.strictEqual(answer.status, 408, `${base}: ${answer.head}`)
          assert.strictEqual(JSON.parse(answer.body).error.code, "REQUEST_TIMEOUT", answer.body)
          assert.match(answer.head, /connection: close/i)
          assert.deepStrictEqual(yield* tableCounts, before)
          // a chunked body that stops between chunks, on an upload route
          const created = yield* post(`${urls.gateway}/contact-lists`, {
            token: ready.key,
            json: { name: `slow ${base}` }
          })
          const lists = base === urls.gateway ? base : urls.campaign
          const list = `${lists}/contact-lists/${created.body.id}/upload`
          const chunked = yield* rawRequest(lists, [
            requestHead("POST", list, {
              authorization: `Bearer ${ready.key}`,
              "content-type": "multipart/form-data; boundary=b",
              "transfer-encoding": "chunked"
            }) + "5\r\n--b\r\n\r\n"
          ], { stopAfterMs: GIVE_UP })
          assert.strictEqual(chunked.status, 408, `${base}: ${chunked.head} ${chunked.body}`)
        }
      }))

    it.effect(
      "a request asking to upgrade, with a body, leaves the gateway's connection to the service in step (the next " +
        "request proxied on it was a 408)",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const ready = yield* callReady(urls.gateway, "PROVIDER_A")
          const body = JSON.stringify(Array.from({ length: 2_000 }, (_, i) => i))
          // refused by the service on its path, before the body: its connection must not wait for that body
          const upgrade = yield* rawRequest(urls.gateway, [
            requestHead("GET", `${urls.gateway}/agents/%00`, {
              authorization: `Bearer ${ready.key}`,
              connection: "upgrade",
              upgrade: "websocket",
              "content-type": "application/json",
              "content-length": String(body.length)
            }) + body
          ], { stopAfterMs: GIVE_UP })
          assert.strictEqual(upgrade.status, 400, upgrade.head)
          for (let i = 0; i < 3; i++) {
            const started = performance.now()
            const next = yield* post(`${urls.gateway}/agents`, {
              token: ready.key,
              json: { name: "after the upgrade", agent_persona_id: "x" }
            })
            assert.strictEqual(next.status, 400, next.text)
            assert.strictEqual(next.body.error.code, "VALIDATION_FAILED", next.text)
            assert.isBelow(performance.now() - started, 1_000, "answered at once")
          }
        })
    )

    it.effect("a body that trickles in for longer than the request timeout is cut off", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const ready = yield* callReady(urls.gateway, "PROVIDER_A")
        const body = "{\"name\":\"trickle\",\"agent_persona_id\":\"x\"}"
        for (const base of [urls.gateway, urls.comms]) {
          const head = requestHead("POST", `${base}/agents`, {
            authorization: `Bearer ${ready.key}`,
            "content-type": "application/json",
            "content-length": String(body.length)
          })
          // a byte every 400 ms: each pause is under the body timeout, the whole over the request timeout
          const answer = yield* rawRequest(base, [head, ...body.split("")], { gapMs: 400, stopAfterMs: GIVE_UP })
          assert.isBelow(answer.elapsedMs, 12_000, `${base}: cut off before the body was complete`)
          assert.isTrue(answer.status === 408 || answer.status === undefined, `${base}: ${answer.head}`)
        }
        // and the servers still answer
        assert.strictEqual((yield* get(`${urls.gateway}/agents`, { token: ready.key })).status, 200)
      }))
  })
})

describe("answers before the body is sent", () => {
  layer(TestPlatform.layer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect(
      "a service refusing an upload before reading it: the gateway forwards that answer, as a direct request gets it",
      () =>
        Effect.gen(function*() {
          const urls = yield* TestPlatform.TestPlatformUrls
          const ready = yield* callReady(urls.gateway, "PROVIDER_A")
          const list =
            (yield* post(`${urls.gateway}/contact-lists`, { token: ready.key, json: { name: "early" } })).body
          const file = "phone\n" + "+14155550100\n".repeat(2_000)
          const body = `--b\r\ncontent-disposition: form-data; name="file"; filename="c.csv"\r\ncontent-type: ` +
            `text/csv\r\n\r\n${file}\r\n--b--\r\n`
          const parts = [body.slice(0, 100), body.slice(100, 8_000), body.slice(8_000, 16_000), body.slice(16_000)]
          const cases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
            ["no credentials", {}, 401],
            ["Basic credentials", { authorization: "Basic dXNlcjpwYXNz" }, 401],
            ["a made-up key", { authorization: `Bearer ${ready.key.slice(0, -8)}AAAAAAAA` }, 401],
            ["a bad list id", { authorization: `Bearer ${ready.key}`, path: "/contact-lists/not-a-uuid/upload" }, 400]
          ]
          for (const [what, { path, ...headers }, status] of cases) {
            for (const base of [urls.gateway, urls.campaign]) {
              const url = `${base}${path ?? `/contact-lists/${list.id}/upload`}`
              const answer = yield* rawRequest(base, [
                requestHead("POST", url, {
                  ...headers,
                  "content-type": "multipart/form-data; boundary=b",
                  "content-length": String(Buffer.byteLength(body))
                }),
                ...parts
              ], { gapMs: 300, stopAfterMs: GIVE_UP })
              assert.strictEqual(answer.status, status, `${what} via ${base}: ${answer.head}`)
            }
          }
        })
    )
  })
})
