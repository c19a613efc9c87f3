/**
 * How a process joins the cluster. Storage is always SQL (`SqlMessageStorage`, `SqlRunnerStorage`)
 * on the platform's database:
 *
 * - `embedded`: the only runner, no network (the `start` role, and tests);
 * - `runner`: a runner among others, reached over `@effect/platform-node`'s socket transport;
 * - `client`: a client-only node (the HTTP services): it sends to entities, owns no shards.
 *
 * The sharding configuration is passed in whole rather than read from the environment, whose
 * `HOST`/`PORT` names would collide with the platform's own variables.
 */
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import { layerClientProtocol, layerSocketServer } from "@effect/platform-node/NodeClusterSocket"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

export interface ClusterOptions {
  readonly shardsPerGroup: number
  /** Where other nodes reach this runner. */
  readonly runnerHost: string
  readonly runnerPort: number
  /** The interface the runner listens on (default: runnerHost). */
  readonly listenHost?: string | undefined
  readonly shardLockRefreshInterval: Duration.DurationInput
  readonly shardLockExpiration: Duration.DurationInput
  readonly entityMessagePollInterval: Duration.DurationInput
  /** How often runners check on each other (see `databaseRunnerHealth`). */
  readonly runnerHealthCheckInterval?: Duration.DurationInput | undefined
}

export const defaultClusterOptions: ClusterOptions = {
  shardsPerGroup: 100,
  runnerHost: "localhost",
  runnerPort: 34431,
  shardLockRefreshInterval: "10 seconds",
  shardLockExpiration: "35 seconds",
  entityMessagePollInterval: "2 seconds",
  runnerHealthCheckInterval: "2 seconds"
}

/** The `application_name` of a runner's database connections: `pg_stat_activity` shows who holds what. */
export const runnerApplicationName = (host: string, port: number) => `voiceagent runner ${host}:${port}`

/**
 * A runner is alive while its database connections are (then, as `@effect/cluster`'s own check
 * does, while it answers a ping). A runner that died (a crash, SIGKILL, a lost host) drops its
 * connections at once, and with them its shard locks: the others notice within one health check
 * (`runnerHealthCheckInterval`) instead of waiting for its heartbeat to expire
 * (`shardLockExpiration`), and take its shards over. A runner that hangs keeps its connections and
 * is judged by the ping.
 */
const databaseRunnerHealth = Layer.scoped(
  RunnerHealth.RunnerHealth,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ping = yield* RunnerHealth.makePing
    return RunnerHealth.RunnerHealth.of({
      isAlive: (address) =>
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = ${runnerApplicationName(address.host, address.port)}
        `.pipe(
          Effect.map(([row]) => row!.n > 0),
          Effect.timeout("5 seconds"),
          Effect.flatMap((connected) => connected ? ping.isAlive(address) : Effect.succeed(false)),
          // the database cannot tell: as before, the ping decides
          Effect.catchAllCause(() => ping.isAlive(address))
        )
    })
  })
)

/** Also an output of each layer below: `/metrics` reads the shard count from it. */
const shardingConfig = (options: ClusterOptions, role: "runner" | "client" | "embedded") =>
  ShardingConfig.layer({
    runnerAddress: role === "client"
      ? Option.none()
      : Option.some(RunnerAddress.make(options.runnerHost, options.runnerPort)),
    runnerListenAddress: role === "client" || options.listenHost === undefined
      ? Option.none()
      : Option.some(RunnerAddress.make(options.listenHost, options.runnerPort)),
    shardsPerGroup: options.shardsPerGroup,
    shardLockRefreshInterval: options.shardLockRefreshInterval,
    shardLockExpiration: options.shardLockExpiration,
    entityMessagePollInterval: options.entityMessagePollInterval,
    runnerHealthCheckInterval: options.runnerHealthCheckInterval ?? defaultClusterOptions.runnerHealthCheckInterval!,
    // how often every node reads the runners' table: a runner found dead moves its shards this soon
    // (alone, the embedded runner has nobody to take over from: its lock refresh is enough)
    refreshAssignmentsInterval: role === "embedded" ? options.shardLockRefreshInterval : "1 second"
  })

const sqlStorage = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(
    Layer.provideMerge(Layer.orDie(SqlMessageStorage.layer)),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer))
  )

/** The single runner of an embedded platform: every shard here, nothing on the network. */
export const embedded = (options: ClusterOptions = defaultClusterOptions) =>
  sqlStorage(Sharding.layer.pipe(Layer.provideMerge(Runners.layerNoop), Layer.provide(RunnerHealth.layerNoop))).pipe(
    Layer.provideMerge(shardingConfig(options, "embedded"))
  )

/** A runner among several: shards are shared out over PostgreSQL, messages travel over sockets. */
export const runner = (options: ClusterOptions) =>
  sqlStorage(
    SocketRunner.layer.pipe(
      Layer.provide(databaseRunnerHealth.pipe(Layer.provide(Runners.layerRpc), Layer.provide(layerClientProtocol))),
      Layer.provide([layerSocketServer, layerClientProtocol])
    )
  ).pipe(
    Layer.provideMerge(shardingConfig(options, "runner")),
    Layer.provide(RpcSerialization.layerMsgPack)
  )

/** A node that sends to entities and owns no shards. */
export const client = (options: ClusterOptions) =>
  sqlStorage(SocketRunner.layerClientOnly.pipe(Layer.provide(layerClientProtocol))).pipe(
    Layer.provideMerge(shardingConfig(options, "client")),
    Layer.provide(RpcSerialization.layerMsgPack)
  )

