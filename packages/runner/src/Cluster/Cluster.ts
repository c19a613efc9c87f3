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
 *
 * Clocks: everything runs on the `Clock` of the fiber that builds the layers (under the testing
 * kit, its virtual clock), with one exception: `@effect/cluster`'s per-entity-type metrics loop, a
 * 1 s sleep forever, sleeps in real time (see `platformTimed`). In production both are the same clock;
 * under a test clock that loop no longer wakes it every virtual second.
 */
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import { layerClientProtocol, layerSocketServer } from "@effect/platform-node/NodeClusterSocket"
import * as Rpc from "@effect/rpc/Rpc"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Rows from "../Sql/Rows.js"

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
 * How many of the runner's connections this database shows (in its own database: a server may hold several platforms).
 */
const connectionsOf = (sql: SqlClient.SqlClient, address: RunnerAddress.RunnerAddress) =>
  Rows.single(
    Schema.Struct({ n: Schema.Int }),
    sql`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND application_name = ${runnerApplicationName(address.host, address.port)}
  `
  ).pipe(Effect.map((row) => row.n), Effect.timeout("5 seconds"))

/**
 * A runner is alive while its database connections are (then, as `@effect/cluster`'s own check
 * does, while it answers a ping). A runner that died (a crash, SIGKILL, a lost host) drops its
 * connections at once, and with them its shard locks: the others notice within one health check
 * (`runnerHealthCheckInterval`) instead of waiting for its heartbeat to expire
 * (`shardLockExpiration`), and take its shards over. A runner that hangs keeps its connections and
 * is judged by the ping.
 *
 * `@effect/cluster` runs its health check as a singleton, on whichever runner holds that singleton's
 * shard: when that runner is the one that dies, nobody checks until its heartbeat expires (35 s by
 * default). So every runner also sweeps for the dead itself (`deadRunnerSweep`), with the same test.
 */
const databaseRunnerHealth = Layer.scoped(
  RunnerHealth.RunnerHealth,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const ping = yield* RunnerHealth.makePing
    const isAlive = (address: RunnerAddress.RunnerAddress) =>
      connectionsOf(sql, address).pipe(
        Effect.flatMap((n) => n > 0 ? ping.isAlive(address) : Effect.succeed(false)),
        // the database cannot tell: as before, the ping decides
        Effect.catchAllCause(() => ping.isAlive(address))
      )
    return RunnerHealth.RunnerHealth.of({ isAlive })
  })
)

/**
 * Every runner, every `runnerHealthCheckInterval`, marks unhealthy the runners that are certainly
 * dead: no connection to the database and no answer to a ping. The survivors then drop the dead
 * one from their hash rings at their next assignment refresh and take its shards, whichever runner
 * held `@effect/cluster`'s health-check singleton. A runner that is only cut off from this one (it
 * keeps its database connections) is never marked here: that call stays the singleton's, so two
 * live runners cannot mark each other down. Marking is idempotent; a runner marked by mistake is
 * marked healthy again by the singleton's check, and one that restarts registers itself afresh.
 */
const deadRunnerSweep = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const storage = yield* RunnerStorage.RunnerStorage
    const runners = yield* Runners.Runners
    const config = yield* ShardingConfig.ShardingConfig
    // a process that is gone refuses the connection at once: three tries a quarter second apart
    const answers = (address: RunnerAddress.RunnerAddress) =>
      runners.ping(address).pipe(
        Effect.timeout("2 seconds"),
        Effect.retry({ times: 2, schedule: Schedule.spaced("250 millis") }),
        Effect.isSuccess
      )
    const self = config.runnerAddress
    const sweep = Effect.gen(function*() {
      const runners = yield* storage.getRunners
      const others = runners.filter(([runner, healthy]) =>
        healthy && !(Option.isSome(self) && Equal.equals(runner.address, self.value))
      )
      yield* Effect.forEach(others, ([runner]) =>
        Effect.gen(function*() {
          if ((yield* connectionsOf(sql, runner.address)) > 0) return
          if (yield* answers(runner.address)) return
          yield* storage.setRunnerHealth(runner.address, false)
          yield* Effect.logWarning(
            "A runner is gone (no database connection, no answer): marked unhealthy, its shards move"
          ).pipe(
            Effect.annotateLogs({ runner: runner.address.toString() })
          )
        }), { concurrency: 10, discard: true })
    }).pipe(
      Effect.catchAllCause((cause) => Effect.logDebug("Dead runner sweep failed", cause))
    )
    yield* sweep.pipe(
      Effect.zipRight(Effect.sleep(config.runnerHealthCheckInterval)),
      Effect.forever,
      Effect.forkScoped
    )
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

/** A handler's answer, run on `clock`: an effect (or an RPC wrapper of one); a stream is left as it is. */
const onClock = (clock: Clock.Clock, result: unknown): unknown => {
  if (Effect.isEffect(result)) return Effect.withClock(result, clock)
  if (typeof result === "object" && result !== null && Rpc.isWrapper(result) && Effect.isEffect(result.value)) {
    return { ...result, value: Effect.withClock(result.value, clock) }
  }
  return result
}

/** A clock that reads `reading`'s time but sleeps on `sleeping`. */
const sleepingOn = (reading: Clock.Clock, sleeping: Clock.Clock): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => reading.unsafeCurrentTimeMillis(),
  get currentTimeMillis() {
    return reading.currentTimeMillis
  },
  unsafeCurrentTimeNanos: () => reading.unsafeCurrentTimeNanos(),
  get currentTimeNanos() {
    return reading.currentTimeNanos
  },
  sleep: (duration) => sleeping.sleep(duration)
})

/**
 * The `Sharding` the platform registers its entities and singletons with.
 *
 * `@effect/cluster` forks one metrics loop per entity type (a gauge update, then a 1 s sleep,
 * forever) from the registering fiber, and takes that fiber's clock for the entity's idle
 * timestamps; so an entity type is registered on a clock that reads the platform's time (the idle
 * reaper compares with it) but sleeps in real time. The entity's build (and what it forks) and every
 * handler run on the platform's clock explicitly, as does every singleton: the cluster builds an
 * entity in whichever fiber delivers its first message.
 */
const platformTimed = (sharding: Sharding.Sharding["Type"], platform: Clock.Clock): Sharding.Sharding["Type"] => {
  const registration = sleepingOn(platform, Clock.make())
  return {
    ...sharding,
    registerEntity: (entity, build, options) =>
      Effect.withClock(
        sharding.registerEntity(
          entity,
          Effect.withClock(
            Effect.map(build, (handlers) =>
              Object.fromEntries(
                Object.entries(handlers).map(([name, handler]) => [
                  name,
                  typeof handler === "function"
                    ? (...args: Array<unknown>) =>
                      onClock(platform, (handler as (...a: Array<unknown>) => unknown)(...args))
                    : handler
                ])
              ) as typeof handlers),
            platform
          ),
          options
        ),
        registration
      ),
    registerSingleton: (name, run, options) =>
      sharding.registerSingleton(name, Effect.withClock(run, platform), options)
  }
}

/**
 * `cluster` with the `Sharding` it outputs replaced by
 * {@link platformTimed}'s, on the clock of the fiber that builds it.
 */
const withPlatformClock = <ROut, E, RIn>(
  cluster: Layer.Layer<ROut | Sharding.Sharding, E, RIn>
): Layer.Layer<ROut | Sharding.Sharding, E, RIn> =>
  Layer.effect(
    Sharding.Sharding,
    Effect.flatMap(Sharding.Sharding, (sharding) =>
      Effect.map(Effect.clock, (platform) => platformTimed(sharding, platform)))
  ).pipe(Layer.provideMerge(cluster))

const sqlStorage = <A, E, R>(layer: Layer.Layer<A, E, R>, runnerStorage = Layer.orDie(SqlRunnerStorage.layer)) =>
  layer.pipe(
    Layer.provideMerge(Layer.orDie(SqlMessageStorage.layer)),
    Layer.provide(runnerStorage)
  )

/** The single runner of an embedded platform: every shard here, nothing on the network. */
export const embedded = (options: ClusterOptions = defaultClusterOptions) =>
  sqlStorage(
    withPlatformClock(
      Sharding.layer.pipe(Layer.provideMerge(Runners.layerNoop), Layer.provide(RunnerHealth.layerNoop))
    )
  ).pipe(
    Layer.provideMerge(shardingConfig(options, "embedded"))
  )

/** A runner among several: shards are shared out over PostgreSQL, messages travel over sockets. */
export const runner = (options: ClusterOptions) => {
  // one runner storage (one lock connection), shared by Sharding and the sweep
  const runnerStorage = Layer.orDie(SqlRunnerStorage.layer)
  const runners = Runners.layerRpc.pipe(Layer.provide(layerClientProtocol))
  return sqlStorage(
    withPlatformClock(Layer.merge(
      SocketRunner.layer.pipe(
        Layer.provide(databaseRunnerHealth.pipe(Layer.provide(runners))),
        Layer.provide([layerSocketServer, layerClientProtocol])
      ),
      deadRunnerSweep.pipe(Layer.provide(runners), Layer.provide(runnerStorage))
    )),
    runnerStorage
  ).pipe(
    Layer.provideMerge(shardingConfig(options, "runner")),
    Layer.provide(RpcSerialization.layerMsgPack)
  )
}

/** A node that sends to entities and owns no shards. */
export const client = (options: ClusterOptions) =>
  sqlStorage(withPlatformClock(SocketRunner.layerClientOnly.pipe(Layer.provide(layerClientProtocol)))).pipe(
    Layer.provideMerge(shardingConfig(options, "client")),
    Layer.provide(RpcSerialization.layerMsgPack)
  )
