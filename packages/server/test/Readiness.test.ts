import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, layer } from "@effect/vitest"
import { CommsHttpLive } from "@voiceagent/http/Comms/CommsHttp"
import { HttpDependencies } from "@voiceagent/http/HttpDependencies"
import { serveApi } from "@voiceagent/http/Serve"
import { ServiceDirectory } from "@voiceagent/http/ServiceDirectory"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import { KnowledgeServices } from "@voiceagent/runner/Knowledge/KnowledgeServices"
import { Recordings, RecordingsSettings } from "@voiceagent/runner/Recordings/Recordings"
import { PlatformSettings } from "@voiceagent/runner/Settings"
import * as Migrations from "@voiceagent/runner/Sql/Migrations"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect, Layer, Option, Redacted } from "effect"
import { get } from "./Http.js"

const CommsOnEmptyDatabase = serveApi("comms", CommsHttpLive, { host: "127.0.0.1", port: 0 }).pipe(
  Layer.provide(HttpDependencies({ sessions: { secret: Redacted.make("r".repeat(32)), ttl: "1 hour" } })),
  Layer.provide(KnowledgeServices()),
  Layer.provide(Recordings.Default.pipe(Layer.provide(RecordingsSettings.layer()))),
  Layer.provide(NodeHttpClient.layerUndici),
  Layer.provide(Cluster.embedded({ ...Cluster.defaultClusterOptions, shardsPerGroup: 4 })),
  Layer.provide(PlatformSettings.layer()),
  Layer.provideMerge(ServiceDirectory.make()),
  Layer.provideMerge(TestDatabase.layerUnmigrated)
)

describe("readiness", () => {
  layer(CommsOnEmptyDatabase, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("is 503 until every migration is applied, then 200", () =>
      Effect.gen(function*() {
        const base = Option.getOrThrow(yield* (yield* ServiceDirectory).lookup("comms"))
        const alive = yield* get(`${base}/healthz`)
        assert.strictEqual(alive.status, 200, "alive does not depend on the database")
        const pending = yield* get(`${base}/readyz`)
        assert.strictEqual(pending.status, 503)
        assert.strictEqual(pending.body.error.code, "NOT_READY")
        assert.deepStrictEqual(pending.body.error.details, { database: "ok", migrations: "pending" })
        yield* Migrations.run()
        const ready = yield* get(`${base}/readyz`)
        assert.strictEqual(ready.status, 200)
        assert.deepStrictEqual(ready.body.checks, { database: "ok", migrations: "ok" })
      }))
  })
})
