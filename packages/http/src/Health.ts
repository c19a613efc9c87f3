import * as SqlClient from "@effect/sql/SqlClient"
import { Alive, NotReady, Ready } from "@voiceagent/domain/Health"
import * as Migrations from "@voiceagent/runner/Sql/Migrations"
import * as Effect from "effect/Effect"

/**
 * Liveness and readiness of one service: the database answers and every migration file is applied.
 * Both name the process answering (`pid`).
 */
export const makeHealth = (service: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const expected = Migrations.latestAvailable()

    const alive = Effect.succeed(new Alive({ status: "ok", service, pid: process.pid }))

    const ready = Effect.gen(function*() {
      const database = yield* sql`SELECT 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as("ok" as const),
        Effect.orElseSucceed(() => "unreachable" as const)
      )
      const applied = database === "ok" ? yield* Migrations.latestApplied.pipe(Effect.orElseSucceed(() => 0)) : 0
      const checks = { database, migrations: applied >= expected ? "ok" as const : "pending" as const }
      if (checks.database !== "ok" || checks.migrations !== "ok") {
        return yield* new NotReady({ details: checks })
      }
      return new Ready({ status: "ready", service, pid: process.pid, checks })
    }).pipe(Effect.provideService(SqlClient.SqlClient, sql))

    return { alive, ready } as const
  })
