/**
 * Node CPU per call on the runtime's own path, in one process: the testing kit's runtime on the real
 * clock (embedded cluster, the simulated carrier answering at once with zero seconds of talk), calls
 * started as the calls API starts them (`TestKit.call`: the spec, then `LiveCall.Start`), CONCURRENCY
 * at a time, until CALLS have ended. Prints CPU ms per call (the process's user + system time, all
 * threads) and SQL statements per call, for ROUNDS rounds after a warm-up; with DATABASE_URL on a
 * scratch PostgreSQL database, else PGlite in memory. Run:
 *   CALLS=1000 npx tsx bench/perf/CallCpu.ts
 * For a profile: `node --cpu-prof --import tsx bench/perf/CallCpu.ts`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { PlatformSettings } from "@voiceagent/runner/Settings"
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

const calls = Number(process.env["CALLS"] ?? 1000)
const concurrency = Number(process.env["CONCURRENCY"] ?? 50)
const rounds = Number(process.env["ROUNDS"] ?? 3)

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = yield* TestKit.tenant({ balance: 1_000_000_000 })
  const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId, "+14155550100")
  const ended = Effect.map(
    sql<
      { n: number }
    >`SELECT count(*)::int AS n FROM call_sessions WHERE tenant_id = ${t.tenantId} AND status = 'ENDED'`,
    ([row]) => row!.n
  ).pipe(Effect.orDie)
  const run = (n: number) =>
    Effect.gen(function*() {
      const before = yield* ended
      const cpu = process.cpuUsage()
      const statements = SqlActivity.started()
      const started = performance.now()
      yield* Effect.forEach(
        Array.from({ length: n }),
        () => TestKit.call(t, { voiceNumberId, to: "+14155551000" }),
        { concurrency, discard: true }
      )
      while ((yield* ended) - before < n) yield* Effect.sleep("20 millis")
      const used = process.cpuUsage(cpu)
      return {
        cpuMsPerCall: (used.user + used.system) / 1000 / n,
        statementsPerCall: (SqlActivity.started() - statements) / n,
        callsPerSecond: n / ((performance.now() - started) / 1000)
      }
    })
  yield* run(Math.min(200, calls))
  for (let i = 0; i < rounds; i++) {
    const r = yield* run(calls)
    console.log(
      `round ${i + 1}: ${r.cpuMsPerCall.toFixed(2)} ms CPU/call, ${r.statementsPerCall.toFixed(2)} statements/call, ${
        r.callsPerSecond.toFixed(0)
      } calls/s`
    )
  }
})

await Effect.runPromise(
  program.pipe(
    Effect.provide(TestKit.layer({
      ringMillis: 0,
      settings: {
        ...PlatformSettings.defaults,
        calls: { ...PlatformSettings.defaults.calls, defaultConcurrentCalls: 100_000 }
      }
    })),
    Logger.withMinimumLogLevel(LogLevel.Error)
  )
)
process.exit(0)
