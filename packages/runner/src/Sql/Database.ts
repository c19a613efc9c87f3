import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as PgliteClient from "./PgliteClient.js"
import * as PostgresClient from "./PostgresClient.js"

/** Where the data lives: embedded PGlite (files under a directory, or memory) or a PostgreSQL server. */
export type DatabaseTarget = Data.TaggedEnum<{
  Pglite: { readonly dataDir: string | undefined }
  Postgres: {
    readonly url: Redacted.Redacted
    readonly maxConnections?: number | undefined
    /** Shows in pg_stat_activity, so each process's connections (and shard locks) can be told apart. */
    readonly applicationName?: string | undefined
  }
}>

export const DatabaseTarget = Data.taggedEnum<DatabaseTarget>()

export const layer = (target: DatabaseTarget): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  DatabaseTarget.$match(target, {
    Pglite: ({ dataDir }) => PgliteClient.layer({ dataDir }),
    Postgres: ({ applicationName, maxConnections, url }) =>
      PostgresClient.layer({ url, maxConnections, applicationName })
  })

export const describe = (target: DatabaseTarget): string =>
  DatabaseTarget.$match(target, {
    Pglite: ({ dataDir }) => `PGlite (${dataDir ?? "in memory"})`,
    Postgres: ({ url }) => {
      try {
        const parsed = new URL(Redacted.value(url))
        return `PostgreSQL (${parsed.host}${parsed.pathname})`
      } catch {
        return "PostgreSQL"
      }
    }
  })
