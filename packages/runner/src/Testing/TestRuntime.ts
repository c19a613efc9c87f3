/**
 * The runtime on a fresh test database, with the embedded cluster: entities, singletons and the
 * simulated carrier, all timed by Effect's Clock. Under `it.effect` that clock is the TestClock, so
 * a test moves calls, timers and retries along with `TestClock.adjust`.
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
import * as TestDatabase from "./TestDatabase.js"

export interface TestRuntimeOptions {
  readonly runtime?: Partial<RuntimeOptions>
  readonly settings?: PlatformSettingsShape
}

export const layer = (options: TestRuntimeOptions = {}) =>
  RuntimeLive({ ...defaultRuntimeOptions, ...options.runtime }).pipe(
    Layer.provideMerge(Cluster.embedded({ ...Cluster.defaultClusterOptions, shardsPerGroup: 8 })),
    Layer.provideMerge(PlatformSettings.layer(options.settings)),
    Layer.provide(NodeHttpClient.layerUndici),
    Layer.provideMerge(TestDatabase.layer)
  )

/**
 * Under the TestClock the cluster acquires its shards only once time moves: this moves it a second
 * at a time until an entity answers.
 */
export const warmUp = Effect.gen(function*() {
  const tenants = yield* TenantEntity.client
  const probe = yield* Effect.fork(tenants(crypto.randomUUID()).GetBalance())
  for (let i = 0; i < 60; i++) {
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    if (probe.unsafePoll() !== null) break
    yield* TestClock.adjust("1 second")
  }
  yield* Fiber.join(probe).pipe(Effect.orDie)
})

export const backendName = TestDatabase.backend
