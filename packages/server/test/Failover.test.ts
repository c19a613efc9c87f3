import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import { runFailover } from "./FailoverScenario.js"

// Runners share shards over PostgreSQL only (an embedded PGlite has one runner), so this runs on DATABASE_URL, else on
// the machine's PostgreSQL at 127.0.0.1:5432, and is skipped only when none answers (or POSTGRES_ONLY_TESTS defers it
// to a run with DATABASE_URL).
const postgres = await TestDatabase.reachablePostgresUrl()
if (postgres === undefined) {
  console.warn(
    `runner failover test SKIPPED: ${TestDatabase.postgresOnlySkipReason()}`
  )
}

describe.skipIf(postgres === undefined)("runner failover on PostgreSQL (PostgreSQL only)", () => {
  it.live(
    "a runner killed with SIGKILL: its entities answer from the survivors, nothing lost or applied twice; SIGTERM " +
      "hands shards over",
    () =>
      Effect.gen(function*() {
        const report = yield* runFailover(postgres!)
        console.log(`runner failover: every entity answered again ${report.takeoverMs} ms after SIGKILL`, report)
        assert.isAbove(report.victimTenants, 0, "the killed runner held some of the tenants")
        assert.strictEqual(report.applied, report.sent, "every persisted top-up applied exactly once")
        assert.strictEqual(report.wrongBalances, 0)
        assert.isTrue(report.duplicateAnsweredOnce)
        assert.isBelow(report.takeoverMs, 60_000)
        console.log(`runner SIGTERM: every entity answered again ${report.handoverMs} ms after SIGTERM`)
        assert.strictEqual(report.sigtermExitCode, 0, "SIGTERM stops a runner cleanly")
        assert.strictEqual(report.locksLeftBySigterm, 0, "a stopped runner holds no shard locks")
      }),
    { timeout: 240_000 }
  )
})
