/**
 * The runtime on a fresh test database, with the embedded cluster: entities, singletons and the
 * simulated carrier, all timed by Effect's Clock. The layer installs the testing kit's virtual clock
 * (`VirtualClock`, a `TestClock` too), so a test moves calls, timers and retries along with
 * `TestClock.adjust` or `TestKit.advance`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as crypto from "node:crypto"
import * as Cluster from "../Cluster/Cluster.js"
import { defaultRuntimeOptions, RuntimeLive, type RuntimeOptions } from "../Runtime.js"
import { PlatformSettings, type PlatformSettingsShape } from "../Settings.js"
import * as PostgresActivity from "./PostgresActivity.js"
import * as Settle from "./Settle.js"
import * as TestDatabase from "./TestDatabase.js"
import * as VirtualClock from "./VirtualClock.js"

export interface TestRuntimeOptions {
  readonly runtime?: Partial<RuntimeOptions>
  readonly settings?: PlatformSettingsShape
}

/**
 * The runtime's layer. It counts the `pg` driver's statements too (`Sql/SqlActivity`, as the
 * testing kit does), so `TestKit.settle` knows when the runtime is quiet on PostgreSQL as on PGlite.
 */
export const layer = (options: TestRuntimeOptions = {}) =>
  RuntimeLive({ ...defaultRuntimeOptions, ...options.runtime }).pipe(
    Layer.provideMerge(Cluster.embedded({ ...Cluster.defaultClusterOptions, shardsPerGroup: 8 })),
    Layer.provideMerge(PlatformSettings.layer(options.settings)),
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provideMerge(TestDatabase.layer),
    Layer.provideMerge(Layer.scopedDiscard(PostgresActivity.trackNodePostgres)),
    Layer.provideMerge(VirtualClock.layer(Settle.settle))
  )

/** Real time `warmUp` gives the cluster; generous, it ends as soon as an entity answers. */
const WARM_UP_MILLIS = 60_000

/**
 * Under a test clock the cluster acquires its shards only once time moves: this moves it a second
 * at a time until an entity answers (each step waits a little real time for the SQL the move started).
 * Dies, saying so, when none has answered after a minute of real time.
 */
export const warmUp = Effect.gen(function*() {
  const tenants = yield* TenantEntity.client
  const probe = yield* Effect.fork(tenants(crypto.randomUUID()).GetBalance())
  // elapsed real time, not a date: performance.now() is monotonic
  const deadline = performance.now() + WARM_UP_MILLIS
  for (let seconds = 0; probe.unsafePoll() === null; seconds++) {
    if (performance.now() >= deadline) {
      yield* Fiber.interrupt(probe)
      return yield* Effect.dieMessage(
        `TestRuntime.warmUp: no entity answered after ${
          WARM_UP_MILLIS / 1000
        } s of real time (${seconds} s of the TestClock)`
      )
    }
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    if (probe.unsafePoll() !== null) break
    yield* TestClock.adjust("1 second")
  }
  yield* Fiber.join(probe).pipe(Effect.orDie)
})

export const backendName = TestDatabase.backend
