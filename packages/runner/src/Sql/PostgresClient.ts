import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import pg from "pg"
import { parseInt8, SqlNaming } from "./SqlNaming.js"

export interface PostgresClientOptions {
  readonly url: Redacted.Redacted
  readonly maxConnections?: number | undefined
  readonly applicationName?: string | undefined
}

const INT8 = 20

const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8
      ? parseInt8
      // (the driver's own default is text)
      : format === "binary"
      ? pg.types.getTypeParser(oid, format)
      : pg.types.getTypeParser(oid)) as pg.CustomTypesConfig["getTypeParser"]
}

/** A pooled client on real PostgreSQL, with the same naming and type rules as the PGlite client. */
export const layer = (options: PostgresClientOptions): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, SqlError> =>
  PgClient.layer({
    url: options.url,
    maxConnections: options.maxConnections ?? 10,
    applicationName: options.applicationName ?? "voice-agent-platform",
    transformQueryNames: SqlNaming.toColumn,
    transformResultNames: SqlNaming.toField,
    transformJson: false,
    types: typeParsers
  })
