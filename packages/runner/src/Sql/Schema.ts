/**
 * Getting the database ready: our migrations, then the tables `@effect/cluster` keeps its messages
 * and shard assignments in (created by the cluster's own storage layers, which own that schema).
 *
 * On PostgreSQL several processes start at once (runners, services). Creating tables concurrently
 * is not safe there ("duplicate key value violates pg_type_typname_nsp_index"), so the whole
 * preparation runs under a session advisory lock: the first process does the work, the others
 * wait and find it done.
 */
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Migrations from "./Migrations.js"

const SCHEMA_LOCK = 7_100_101

export const prepare = (options: { readonly exclusive: boolean }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (options.exclusive) {
      const connection = yield* sql.reserve
      yield* connection.executeRaw(`SELECT pg_advisory_lock(${SCHEMA_LOCK})`, [])
      yield* Effect.addFinalizer(() =>
        connection.executeRaw(`SELECT pg_advisory_unlock(${SCHEMA_LOCK})`, []).pipe(Effect.ignore)
      )
    }
    const applied = yield* Migrations.run()
    yield* Layer.build(
      Layer.mergeAll(SqlMessageStorage.layer, SqlRunnerStorage.layer).pipe(Layer.provide(ShardingConfig.layerDefaults))
    ).pipe(Effect.scoped)
    return applied
  }).pipe(Effect.scoped)
