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
import { Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Option, Scope } from "effect"
import * as http from "node:http"
import type { Duplex } from "node:stream"

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
      response.on("end", () =>
        resume(Effect.succeed({ status: response.statusCode!, connection: response.headers.connection, body })))
      response.on("error", (e: NodeJS.ErrnoException) =>
        resume(Effect.succeed({ error: e.code ?? e.message })))
    })
    request.on("error", (e: NodeJS.ErrnoException) => resume(Effect.succeed({ error: e.code ?? e.message })))
  })

/** Resolved when a request reaches its handler: the tests stop the server with it in flight. */
const reached = { slow: Effect.runSync(Deferred.make<void>()), stuck: Effect.runSync(Deferred.make<void>()) }

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/fast", HttpServerResponse.text("fast")),
  HttpRouter.get(
    "/slow",
    Deferred.succeed(reached.slow, undefined).pipe(
      Effect.zipRight(Effect.sleep("1200 millis")),
      Effect.as(HttpServerResponse.text("slow done"))
    )
  ),
  HttpRouter.get("/stuck", Deferred.succeed(reached.stuck, undefined).pipe(Effect.zipRight(Effect.never)))
)

/** Waits for `event`; dies naming it after `millis` (generous: the wait ends on the event). */
const within = <A>(event: Effect.Effect<A>, millis: number, what: string) =>
  event.pipe(
    Effect.timeoutFail({
      duration: Duration.millis(millis),
      onTimeout: () => new Error(`waited ${millis} ms for ${what}`)
    }),
    Effect.orDie
  )

/** Resolves once `socket` has closed. */
const closed = (socket: Duplex) =>
  Effect.async<void>((resume) => {
    if (socket.closed) return resume(Effect.void)
    socket.once("close", () => resume(Effect.void))
  })

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
  it.live(
    "finishes the request in flight with Connection: close, closes idle keep-alive connections at once, refuses new " +
      "ones",
    () =>
      Effect.gen(function*() {
        const { base, scope } = yield* serving("10 seconds")
        const idleAgent = new http.Agent({ keepAlive: true })
        const busyAgent = new http.Agent({ keepAlive: true })
        const idle = yield* send(`${base}/fast`, idleAgent)
        assert.deepStrictEqual(idle, { status: 200, connection: "keep-alive", body: "fast" })
        assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 1, "a kept-alive idle connection")

        const [idleSocket] = Object.values(idleAgent.freeSockets).flat()
        const slow = yield* Effect.fork(send(`${base}/slow`, busyAgent))
        yield* within(Deferred.await(reached.slow), 10_000, "the slow request at its handler")
        const started = Date.now()
        const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
        // the server stops accepting and closes idle connections in one step: wait for the idle one to go
        yield* within(closed(idleSocket!), 10_000, "the idle keep-alive connection to be closed")

        assert.deepStrictEqual(yield* send(`${base}/fast`, false), { error: "ECONNREFUSED" }, "no new connections")
        assert.strictEqual(Object.values(idleAgent.freeSockets).flat().length, 0, "the idle connection was closed")
        assert.deepStrictEqual(yield* Fiber.join(slow), { status: 200, connection: "close", body: "slow done" })
        yield* Fiber.join(closing)
        const stoppedMs = Date.now() - started
        assert.isBelow(
          stoppedMs,
          2_500,
          "stopped once the request in flight was answered, not after keep-alive timeouts"
        )
        idleAgent.destroy()
        busyAgent.destroy()
      })
  )

  it.live("closes what is still in flight when the grace is over", () =>
    Effect.gen(function*() {
      const { base, scope } = yield* serving("400 millis")
      const stuck = yield* Effect.fork(send(`${base}/stuck`, false))
      yield* within(Deferred.await(reached.stuck), 10_000, "the stuck request at its handler")
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      const stoppedMs = Date.now() - started
      assert.isAtLeast(stoppedMs, 350)
      assert.isBelow(stoppedMs, 1_500)
      assert.deepStrictEqual(yield* Fiber.join(stuck), { error: "ECONNRESET" })
    }))
})
