import { type ServiceName, ServiceNames } from "@voiceagent/domain/Gateway"
import { MetricsAddress } from "@voiceagent/http/MetricsServer"
import { HttpTimeouts, ShutdownGrace } from "@voiceagent/http/Serve"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import * as Database from "@voiceagent/runner/Sql/Database"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Config from "./Config.js"
import {
  DatabaseLive,
  databaseTarget,
  Embedded,
  GatewayOnly,
  migrate,
  nodeOptions,
  RunnerNode,
  servicesOptions,
  SingleService
} from "./Roles.js"

export const describeStart = "Run `start` (what `npm start` does) for everything in one process."

const requirePostgres = (config: Config.AppConfig, role: string) =>
  Option.isSome(config.databaseUrl)
    ? Effect.void
    : Effect.fail(
      new Config.InvalidConfiguration({
        problems: [
          `DATABASE_URL: required for role ${role} (PGlite files can be opened by one process only; ` +
          "use `start` for the embedded single-process platform)"
        ]
      })
    )

export const banner = (urls: ReadonlyMap<string, string>, database: string): string => {
  const gateway = urls.get("gateway")
  const services = ServiceNames.filter((s) => urls.has(s))
  const lines = [
    "",
    `Voice Agent Platform is running (database: ${database})`,
    "",
    ...(gateway === undefined ? [] : [
      `  Dashboard      ${gateway}/   sign up and run everything from the browser`,
      `  Gateway        ${gateway}   API under /api/v1, reference at ${gateway}/docs`
    ]),
    ...services.map((s) => `  ${s.padEnd(14)} ${urls.get(s)}`),
    ""
  ]
  if (gateway !== undefined && services.length > 0) {
    lines.push(
      "Get credentials:",
      `  1. curl -s -X POST ${gateway}/api/v1/auth/signup -H 'content-type: application/json' \\`,
      `       -d '{"email":"you@example.com","password":"choose-a-password","companyName":"Acme"}'`,
      "  2. with the token it returns, create an API key:",
      `     curl -s -X POST ${gateway}/api/v1/api-keys -H 'authorization: Bearer <token>' \\`,
      `       -H 'content-type: application/json' -d '{"name":"my first key"}'`,
      ""
    )
  }
  return lines.join("\n")
}

/**
 * `NodeRuntime.runMain` turns the first SIGINT or SIGTERM into an interruption of the main fiber and
 * removes its listeners; a second signal would then kill the process by default, skipping its exit
 * handlers (which SIGKILL child processes: Chroma, the roles of `cluster:local`). A Ctrl-C can be
 * delivered twice (by the terminal and by npm), so a repeat within two seconds is ignored; a later
 * one exits at once with code 130, exit handlers included.
 */
export const guardRepeatedSignals = (name: string) => {
  let first: number | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = Date.now()
      return
    }
    if (Date.now() - first < 2_000) return
    process.stderr.write(`${name}: ${signal} again: stopping at once\n`)
    process.exit(130)
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
}

/** How long past `SHUTDOWN_GRACE` a stopping process may take before the watchdog ends it (code 1). */
export const WATCHDOG_MARGIN = Duration.seconds(15)

/** The grace every HTTP server of the role drains within (`SHUTDOWN_GRACE`), and its clients' timeouts. */
const withGrace = (config: Config.AppConfig) =>
  Layer.provide(
    Layer.mergeAll(Layer.succeed(ShutdownGrace, config.shutdownGrace), Layer.succeed(HttpTimeouts, config.httpTimeouts))
  )

/**
 * Runs `start` (which builds the role's layers in the scope) until interrupted: SIGTERM or SIGINT,
 * on which `NodeRuntime.runMain` interrupts the main fiber and exits 0 once every finalizer has
 * run. A finalizer added after `start` runs first: it logs the stop and arms a watchdog in case a
 * later finalizer hangs. Then, in reverse order of construction, the HTTP servers drain within
 * `SHUTDOWN_GRACE` (`listen`), a runner hands its shards back, the database connections close.
 */
const runUntilInterrupted = <E, R>(role: string, config: Config.AppConfig, start: Effect.Effect<void, E, R>) =>
  Effect.suspend(() => {
    let stopping: { readonly since: number; readonly watchdog: ReturnType<typeof setTimeout> } | undefined
    const limit = Duration.sum(config.shutdownGrace, WATCHDOG_MARGIN)
    return Effect.gen(function*() {
      yield* start
      yield* Effect.addFinalizer(() =>
        Effect.suspend(() => {
          const watchdog = setTimeout(() => {
            process.stderr.write(
              `${role}: still stopping ${Duration.format(limit)} after the signal: exiting with code 1\n`
            )
            process.exit(1)
          }, Duration.toMillis(limit))
          watchdog.unref()
          stopping = { since: Date.now(), watchdog }
          return Effect.logInfo(`${role}: stopping (grace ${Duration.format(config.shutdownGrace)})`)
        })
      )
      return yield* Effect.never
    }).pipe(
      Effect.scoped,
      Effect.onInterrupt(() =>
        Effect.suspend(() => {
          if (stopping === undefined) return Effect.void
          clearTimeout(stopping.watchdog)
          return Effect.logInfo(`${role}: stopped in ${Date.now() - stopping.since} ms`)
        })
      )
    )
  })

/** Builds `layer` and prints what is listening. */
const serveLayer = <E, R>(config: Config.AppConfig, layer: Layer.Layer<ServiceDirectory, E, R>, database: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer.pipe(withGrace(config)))
    const urls = yield* Context.get(context, ServiceDirectory).all
    yield* Console.log(banner(urls, database))
  })

export const runEmbedded = Effect.gen(function*() {
  const config = yield* Config.load
  const secret = yield* Config.resolveJwtSecret(config, { mayGenerate: true })
  const target = databaseTarget(config)
  const layer = Embedded(servicesOptions(config, secret), nodeOptions(config)).pipe(
    Layer.provideMerge(ServiceDirectory.make()),
    Layer.provide(DatabaseLive(target))
  )
  return yield* runUntilInterrupted("start", config, serveLayer(config, layer, Database.describe(target)))
})

export const runService = (service: ServiceName) =>
  Effect.gen(function*() {
    const config = yield* Config.load
    yield* requirePostgres(config, `serve ${service}`)
    const secret = yield* Config.resolveJwtSecret(config, { mayGenerate: false })
    const target = databaseTarget(config)
    const layer = SingleService(service, servicesOptions(config, secret), nodeOptions(config, "service")).pipe(
      Layer.provideMerge(ServiceDirectory.make()),
      Layer.provide(DatabaseLive(target))
    )
    return yield* runUntilInterrupted(`serve ${service}`, config, serveLayer(config, layer, Database.describe(target)))
  })

export const runRunner = Effect.gen(function*() {
  const config = yield* Config.load
  yield* requirePostgres(config, "runner")
  const node = nodeOptions(config, "runner")
  const target = databaseTarget(config, Cluster.runnerApplicationName(node.cluster.runnerHost, node.cluster.runnerPort))
  return yield* runUntilInterrupted(
    "runner",
    config,
    Effect.gen(function*() {
      const context = yield* Layer.build(RunnerNode(node).pipe(Layer.provide(DatabaseLive(target)), withGrace(config)))
      const metrics = Context.get(context, MetricsAddress).url
      yield* Console.log(
        `\nRunner listening on ${node.cluster.listenHost ?? node.cluster.runnerHost}:${node.cluster.runnerPort} ` +
          `(advertised as ${node.cluster.runnerHost}:${node.cluster.runnerPort}; metrics and /healthz at ${metrics}; ` +
          `database: ${Database.describe(target)})\n`
      )
    })
  )
})

export const runGateway = Effect.gen(function*() {
  const config = yield* Config.load
  return yield* runUntilInterrupted(
    "serve gateway",
    config,
    serveLayer(config, GatewayOnly(config), "none (the gateway only proxies)")
  )
})

export const runMigrate = Effect.gen(function*() {
  const config = yield* Config.load
  const target = databaseTarget(config)
  yield* Effect.logInfo(`Migrating ${Database.describe(target)}`)
  const applied = yield* migrate(target).pipe(Effect.provide(Database.layer(target)))
  yield* Effect.logInfo(applied.length === 0 ? "Database is up to date" : `Applied ${applied.length} migration(s)`)
})
