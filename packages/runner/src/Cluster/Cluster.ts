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
import type * as Duration from "effect/Duration"
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
}

export const defaultClusterOptions: ClusterOptions = {
  shardsPerGroup: 100,
  runnerHost: "localhost",
  runnerPort: 34431,
  shardLockRefreshInterval: "10 seconds",
  shardLockExpiration: "35 seconds",
  entityMessagePollInterval: "2 seconds"
}

/** Also an output of each layer below: `/metrics` reads the shard count from it. */
const shardingConfig = (options: ClusterOptions, role: "runner" | "client") =>
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
    entityMessagePollInterval: options.entityMessagePollInterval
  })

const sqlStorage = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(
    Layer.provideMerge(Layer.orDie(SqlMessageStorage.layer)),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer))
  )

/** The single runner of an embedded platform: every shard here, nothing on the network. */
export const embedded = (options: ClusterOptions = defaultClusterOptions) =>
  sqlStorage(Sharding.layer.pipe(Layer.provideMerge(Runners.layerNoop), Layer.provide(RunnerHealth.layerNoop))).pipe(
    Layer.provideMerge(shardingConfig(options, "runner"))
  )

/** A runner among several: shards are shared out over PostgreSQL, messages travel over sockets. */
export const runner = (options: ClusterOptions) =>
  sqlStorage(
    SocketRunner.layer.pipe(
      Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(layerClientProtocol))),
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

