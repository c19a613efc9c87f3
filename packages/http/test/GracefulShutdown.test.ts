/**
 * `listen`'s graceful stop, on real sockets: what a process does with its HTTP servers on SIGTERM
 * (the scope of the serving layer closes). Real time: the grace bounds real connections.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { assert, describe, it } from "@effect/vitest"
import { listen, ShutdownGrace } from "@voiceagent/http/Serve"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import { Context, Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Option, Scope } from "effect"
import * as http from "node:http"

interface Answer {
  readonly status: number
  readonly connection: string | undefined
  readonly body: string
}

/** One request over `agent`; an error (refused, reset) is answered as its code. */
const send = (url: string, agent: http.Agent | false) =>
  Effect.async<Answer | { readonly error: string }>((resume) => {
    const request = http.get(url, { agent }, (response) => {
      let body = ""
      response.setEncoding("utf8").on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode!, connection: response.headers.connection, body })))
      response.on("error", (e: NodeJS.ErrnoException) => resume(Effect.succeed({ error: e.code ?? e.message })))
    })
    request.on("error", (e: NodeJS.ErrnoException) => resume(Effect.succeed({ error: e.code ?? e.message })))
  })

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/fast", HttpServerResponse.text("fast")),
  HttpRouter.get("/slow", Effect.sleep("1200 millis").pipe(Effect.as(HttpServerResponse.text("slow done")))),
  HttpRouter.get("/stuck", Effect.never)
)

/** The served app in a scope of its own, so the test decides when it closes (as a signal would). */
const serving = (grace: Duration.DurationInput) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      HttpServer.serve(app).pipe(
        Layer.provide(listen("test", { host: "127.0.0.1", port: 0 })),
        Layer.provideMerge(ServiceDirectory.make()),
        Layer.provide(Layer.succeed(ShutdownGrace, Duration.decode(grace)))
      ),
      scope
    )
    const base = Option.getOrThrow(yield* Context.get(context, ServiceDirectory).lookup("test"))
    return { scope, base }
  }).pipe(Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))

describe("graceful stop of an HTTP server", () => {
  it.live("finishes the request in flight with Connection: close, closes idle keep-alive connections at once, refuses new ones", () =>
    Effect.gen(function*() {
      const { base, scope } = yield* serving("10 seconds")
      const idleAgent = new http.Agent({ keepAlive: true })
      const busyAgent = new http.Agent({ keepAlive: true })
      const idle = yield* send(`${base}/fast`, idleAgent)
      assert.deepStrictEqual(idle, { status: 200, connection: "keep-alive", body: "fast" })
      assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 1, "a kept-alive idle connection")

      const slow = yield* Effect.fork(send(`${base}/slow`, busyAgent))
      yield* Effect.sleep("300 millis")
      const started = Date.now()
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* Effect.sleep("100 millis")

      assert.deepStrictEqual(yield* send(`${base}/fast`, false), { error: "ECONNREFUSED" }, "no new connections")
      assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 0, "the idle connection was closed")
      assert.deepStrictEqual(yield* Fiber.join(slow), { status: 200, connection: "close", body: "slow done" })
      yield* Fiber.join(closing)
      const stoppedMs = Date.now() - started
      assert.isBelow(stoppedMs, 2_500, "stopped once the request in flight was answered, not after keep-alive timeouts")
      idleAgent.destroy()
      busyAgent.destroy()
    }))

  it.live("closes what is still in flight when the grace is over", () =>
    Effect.gen(function*() {
      const { base, scope } = yield* serving("400 millis")
      const stuck = yield* Effect.fork(send(`${base}/stuck`, false))
      yield* Effect.sleep("200 millis")
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      const stoppedMs = Date.now() - started
      assert.isAtLeast(stoppedMs, 350)
      assert.isBelow(stoppedMs, 1_500)
      assert.deepStrictEqual(yield* Fiber.join(stuck), { error: "ECONNRESET" })
    }))
})
