import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Context, Effect, HashMap, Layer, List, Logger, LogLevel } from "effect"
import { callReady, createKey, get, post, signup, waitUntil } from "./Http.js"

interface Line {
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly text: string
}

class Recorded extends Context.Tag("test/Recorded")<Recorded, Array<Line>>() {}

const lines: Array<Line> = []

const recorder = Logger.make<unknown, void>(({ annotations, cause, message }) => {
  const record = Object.fromEntries(HashMap.toEntries(annotations))
  const text = JSON.stringify({ message: List.isList(message) ? [...message] : message, record, cause: String(cause) })
  lines.push({ message: String(Array.isArray(message) ? message[0] : message), annotations: record, text })
})

const WithRecorder = TestPlatform.layer({ logLevel: LogLevel.Info }).pipe(
  Layer.provide(Logger.replace(Logger.defaultLogger, recorder)),
  Layer.merge(Layer.succeed(Recorded, lines))
)

describe("structured logs", () => {
  layer(WithRecorder, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("every line logged while serving a request carries its request id", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const recorded = yield* Recorded
        const reply = yield* get(`${gateway}/profile`)
        const requestId = reply.headers.get("x-request-id")!
        const ofRequest = recorded.filter((l) => l.annotations["requestId"] === requestId)
        const services = ofRequest.map((l) => l.annotations["service"]).sort()
        assert.deepStrictEqual(services, ["gateway", "platform-core"], "the gateway and the service log the same id")
        const requestLines = recorded.filter((l) => l.message === "request")
        assert.isAbove(requestLines.length, 0)
        for (const line of requestLines) assert.isString(line.annotations["requestId"], line.text)
        const access = ofRequest.find((l) => l.annotations["service"] === "platform-core")!
        assert.deepInclude(access.annotations, { method: "GET", path: "/api/v1/profile", status: 401 })
      }))

    it.effect("lines name the caller's tenant once authenticated, and an entity's lines its address", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const recorded = yield* Recorded
        const { account, agentId, key, voiceNumberId } = yield* callReady(gateway, "PROVIDER_A")
        // the simulated carrier: …0001 answers after the ring and talks for a second
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: key,
          json: { agentId, voiceNumberId, toNumber: "+14155550001" }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        const requestId = placed.headers.get("x-request-id")!
        const access = recorded.find((l) =>
          l.message === "request" && l.annotations["requestId"] === requestId && l.annotations["service"] === "comms"
        )!
        assert.deepInclude(access.annotations, { tenantId: account.tenantId, status: 202 }, access.text)
        const anonymous = recorded.find((l) =>
          l.message === "request" && l.annotations["path"] === "/api/v1/auth/signup"
        )!
        assert.notProperty(anonymous.annotations, "tenantId", "no caller, no tenant")

        const sessionId = placed.body.sessionId as string
        yield* waitUntil(
          Effect.sync(() => recorded.some((l) => l.message === "call ended" && l.text.includes(sessionId))),
          (logged) => logged,
          `the "call ended" line of ${sessionId}`
        )
        for (const message of ["call queued", "call ended"]) {
          const line = recorded.find((l) =>
            l.message === message && l.annotations["entity"] === `LiveCall/${sessionId}`
          )
          assert.isDefined(
            line,
            `${message}: ${recorded.filter((l) => l.message === message).map((l) => l.text).join("\n")}`
          )
          assert.deepInclude(line!.annotations, { tenantId: account.tenantId })
          assert.match(String(line!.annotations["shard"]), /^default:\d+$/)
        }
      }))

    it.effect("keys, tokens and passwords never reach the logs", () =>
      Effect.gen(function*() {
        const { gateway } = yield* TestPlatform.TestPlatformUrls
        const recorded = yield* Recorded
        const account = yield* signup(gateway)
        const { key, signingSecret } = yield* createKey(gateway, account.token)
        yield* get(`${gateway}/profile`, { token: key })
        yield* get(`${gateway}/profile`, { headers: { authorization: `Bearer Bearer ${key}` } })
        yield* post(`${gateway}/auth/login`, { json: { email: account.email, password: "correct horse battery" } })
        const all = recorded.map((l) => l.text).join("\n")
        for (const secret of [key, key.slice(4), signingSecret, account.token, "correct horse battery"]) {
          assert.notInclude(all, secret)
        }
      }))
  })
})
