/**
 * `npm run cluster:local`: the production topology as separate processes on this machine (see
 * `ClusterLocal.ts`), on the PostgreSQL database in DATABASE_URL, until Ctrl-C or SIGTERM.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Database from "@voiceagent/runner/Sql/Database"
import * as Config from "@voiceagent/server/Config"
import { guardRepeatedSignals } from "@voiceagent/server/Program"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as path from "node:path"
import * as ClusterLocal from "./ClusterLocal.js"

const logs = Options.directory("logs").pipe(
  Options.withDescription("where each process's log goes (default DATA_DIR/cluster-local)"),
  Options.optional
)
const basePort = Options.integer("base-port").pipe(
  Options.withDescription(
    "ports from here: gateway +0, platform-core +1, comms +2, campaign +3, Chroma +4, runners +10, +11, … (default: " +
      "free ports)"
  ),
  Options.optional
)
const runners = Options.integer("runners").pipe(Options.withDescription("runner processes"), Options.withDefault(2))

const program = (options: {
  readonly logs: Option.Option<string>
  readonly basePort: Option.Option<number>
  readonly runners: number
}) =>
  Effect.gen(function*() {
    const config = yield* Config.load
    if (Option.isNone(config.databaseUrl)) {
      return yield* Effect.fail(
        new Config.InvalidConfiguration({
          problems: [
            "DATABASE_URL: required. cluster:local runs every role as its own process on one PostgreSQL database " +
            "(PGlite files can be opened by one process only), e.g.\n" +
            "      DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run cluster:local\n" +
            "    (`npm start` runs the whole platform in one process on PGlite)"
          ]
        })
      )
    }
    const target = Database.DatabaseTarget.Postgres({ url: config.databaseUrl.value, applicationName: "cluster:local" })
    const secret = yield* Config.resolveJwtSecret(config, { mayGenerate: true })
    const logsDir = path.resolve(Option.getOrElse(options.logs, () => path.join(config.dataDir, "cluster-local")))
    const report = (line: string) => process.stdout.write(`${line}\n`)

    yield* Console.log(
      `Starting a local cluster on ${Database.describe(target)}: migrate, ${options.runners} runner(s), ` +
        `platform-core, comms, campaign, the gateway and Chroma (logs in ${ClusterLocal.displayPath(logsDir)})`
    )
    const started = Date.now()
    const cluster = yield* ClusterLocal.start({
      databaseUrl: Redacted.value(config.databaseUrl.value),
      logsDir,
      runners: options.runners,
      basePort: Option.getOrUndefined(options.basePort),
      chroma: Option.match(config.knowledge.chromaUrl, {
        onNone: () => "embedded" as const,
        onSome: (url) => ({ url })
      }),
      jwtSecret: Redacted.value(secret),
      stopTimeout: Duration.sum(config.shutdownGrace, Duration.seconds(10)),
      report
    })
    yield* Console.log(
      [
        "",
        ClusterLocal.table(cluster),
        "",
        `Ready in ${
          ((Date.now() - started) / 1000).toFixed(1)
        } s. Gateway: ${cluster.gatewayUrl} (API under /api/v1, ` +
        `reference at ${cluster.gatewayUrl}/docs). Ctrl-C stops everything.`,
        ""
      ].join("\n")
    )
    // a process that exits on its own is reported; the others keep running
    yield* Effect.forEach(cluster.processes.filter((p) => p.name !== "migrate"), (p) =>
      Effect.flatMap(p.exited, (status) =>
        cluster.stopping()
          ? Effect.void
          : Console.log(
            `${p.name} (pid ${p.pid}) exited with ${ClusterLocal.describeExit(status)}; the others keep running`
          )), {
      concurrency: "unbounded",
      discard: true
    }).pipe(Effect.forkScoped)
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.onInterrupt(() =>
      Console.log("All stopped.")
    )
  )

const command = Command.make("cluster:local", { logs, basePort, runners }, program).pipe(
  Command.withDescription(
    "Run the production topology on this machine against DATABASE_URL: migrate, then runners, platform-core, comms, " +
      "campaign, the gateway and Chroma, each its own process with its own port and log file. Ctrl-C stops them all."
  )
)

guardRepeatedSignals("cluster:local")

Command.run(command, { name: "cluster:local", version: "0.1.0" })(process.argv).pipe(
  Effect.catchIf(
    (e): e is Config.InvalidConfiguration => e instanceof Config.InvalidConfiguration,
    (e) => Console.error(e.message).pipe(Effect.zipRight(Effect.sync(() => process.exit(2))))
  ),
  Effect.catchTag(
    "ClusterLocalError",
    (e) =>
      Console.error(`cluster:local: ${e.message}${e.log === "" ? "" : `\n--- last lines of its log ---\n${e.log}`}`)
        .pipe(
          Effect.zipRight(Effect.sync(() => process.exit(1)))
        )
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
