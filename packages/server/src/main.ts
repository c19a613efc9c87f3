/**
 * The one CLI; the role is the command. `npm start` runs `start`.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { GatewayRoutes, type ServiceName, ServiceNames } from "@voiceagent/domain/Gateway"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Config from "./Config.js"
import {
  describeStart,
  guardRepeatedSignals,
  runEmbedded,
  runGateway,
  runMigrate,
  runRunner,
  runService
} from "./Program.js"

const routeTable = GatewayRoutes.map((r) => `  ${r.prefix.padEnd(28)} -> ${r.service}`).join("\n")

const variableTable = Config.Variables.map((v) =>
  `  ${v.name.padEnd(20)} ${v.description}${v.default === undefined ? "" : ` (default ${v.default})`}`
).join("\n")

const start = Command.make("start", {}, () => runEmbedded).pipe(
  Command.withDescription(
    "Run the whole platform in one process on embedded defaults: PGlite under DATA_DIR (or PostgreSQL when " +
      "DATABASE_URL is set), migrations, the three services and the gateway."
  )
)

const serve = Command.make(
  "serve",
  {
    service: Args.choice<ServiceName | "gateway">([...ServiceNames, "gateway" as const].map((s) => [s, s])).pipe(
      Args.withDescription("platform-core | comms | campaign | gateway")
    )
  },
  ({ service }) => service === "gateway" ? runGateway : runService(service)
).pipe(
  Command.withDescription(
    "Run one HTTP service (platform-core, comms, campaign) against DATABASE_URL, or the gateway in front of " +
      "PLATFORM_CORE_URL, COMMS_URL and CAMPAIGN_URL."
  )
)

const runner = Command.make("runner", {}, () => runRunner).pipe(
  Command.withDescription(
    "Run a cluster runner against DATABASE_URL: it owns shards (tenants' wallets, live calls), the webhook " +
      "dispatcher and the live-call supervisor. Other runners and services find it at RUNNER_HOST:RUNNER_PORT."
  )
)

const migrate = Command.make("migrate", {}, () => runMigrate).pipe(
  Command.withDescription("Apply the migrations in sql/ to the configured database and exit.")
)

const root = Command.make("voiceagent").pipe(
  Command.withDescription(
    `Voice Agent Platform.\n\nGateway routes (path prefix -> service):\n${routeTable}\n\n` +
      `Environment:\n${variableTable}\n\n${describeStart}`
  ),
  Command.withSubcommands([start, serve, runner, migrate])
)

const cli = Command.run(root, { name: "voiceagent", version: "0.1.0" })

const LoggingLive = Layer.unwrapEffect(
  Effect.map(Effect.option(Config.AppConfig), (config) =>
    Layer.mergeAll(
      Logger.json,
      Logger.minimumLogLevel(Option.match(config, { onNone: () => Config.defaultLogLevel, onSome: (c) => c.logLevel }))
    ))
)

guardRepeatedSignals("voiceagent")

cli(process.argv).pipe(
  Effect.catchIf(
    (e): e is Config.InvalidConfiguration => e instanceof Config.InvalidConfiguration,
    (e) => Console.error(e.message).pipe(Effect.zipRight(Effect.sync(() => process.exit(2))))
  ),
  Effect.provide(LoggingLive),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
