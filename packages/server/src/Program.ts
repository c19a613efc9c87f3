import type { ServiceName } from "@voiceagent/domain/Gateway"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import * as Database from "@voiceagent/runner/Sql/Database"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
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
      new Config.InvalidConfiguration([
        `DATABASE_URL: required for role ${role} (PGlite files can be opened by one process only; ` +
        "use `start` for the embedded single-process platform)"
      ])
    )

export const banner = (urls: ReadonlyMap<string, string>, database: string): string => {
  const gateway = urls.get("gateway") ?? "?"
  const lines = [
    "",
    `Voice Agent Platform is running (database: ${database})`,
    "",
    `  Gateway        ${gateway}   API under /api/v1, reference at ${gateway}/docs`,
    ...["platform-core", "comms", "campaign"].map((s) => `  ${s.padEnd(14)} ${urls.get(s) ?? "?"}`),
    "",
    "Get credentials:",
    `  1. curl -s -X POST ${gateway}/api/v1/auth/signup -H 'content-type: application/json' \\`,
    `       -d '{"email":"you@example.com","password":"choose-a-password","companyName":"Acme"}'`,
    "  2. with the token it returns, create an API key:",
    `     curl -s -X POST ${gateway}/api/v1/api-keys -H 'authorization: Bearer <token>' \\`,
    `       -H 'content-type: application/json' -d '{"name":"my first key"}'`,
    ""
  ]
  return lines.join("\n")
}

/** Builds `layer`, prints what is listening, and runs until interrupted (Ctrl-C / SIGTERM). */
const runUntilInterrupted = <E, R>(layer: Layer.Layer<ServiceDirectory, E, R>, database: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    const urls = yield* Context.get(context, ServiceDirectory).all
    yield* Console.log(banner(urls, database))
    return yield* Effect.never
  }).pipe(Effect.scoped)

export const runEmbedded = Effect.gen(function*() {
  const config = yield* Config.load
  const secret = yield* Config.resolveJwtSecret(config, { mayGenerate: true })
  const target = databaseTarget(config)
  const layer = Embedded(servicesOptions(config, secret), nodeOptions(config)).pipe(
    Layer.provideMerge(ServiceDirectory.make()),
    Layer.provide(DatabaseLive(target))
  )
  return yield* runUntilInterrupted(layer, Database.describe(target))
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
    return yield* runUntilInterrupted(layer, Database.describe(target))
  })

export const runRunner = Effect.gen(function*() {
  const config = yield* Config.load
  yield* requirePostgres(config, "runner")
  const node = nodeOptions(config, "runner")
  const target = databaseTarget(config, `voiceagent runner ${node.cluster.runnerHost}:${node.cluster.runnerPort}`)
  return yield* Effect.gen(function*() {
    yield* Layer.build(RunnerNode(node).pipe(Layer.provide(DatabaseLive(target))))
    yield* Console.log(
      `\nRunner listening on ${node.cluster.listenHost ?? node.cluster.runnerHost}:${node.cluster.runnerPort} ` +
        `(advertised as ${node.cluster.runnerHost}:${node.cluster.runnerPort}; database: ${Database.describe(target)})\n`
    )
    return yield* Effect.never
  }).pipe(Effect.scoped)
})

export const runGateway = Effect.gen(function*() {
  const config = yield* Config.load
  return yield* runUntilInterrupted(GatewayOnly(config), "none (the gateway only proxies)")
})

export const runMigrate = Effect.gen(function*() {
  const config = yield* Config.load
  const target = databaseTarget(config)
  yield* Effect.logInfo(`Migrating ${Database.describe(target)}`)
  const applied = yield* migrate(target).pipe(Effect.provide(Database.layer(target)))
  yield* Effect.logInfo(applied.length === 0 ? "Database is up to date" : `Applied ${applied.length} migration(s)`)
})
