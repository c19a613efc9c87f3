import * as SqlClient from "@effect/sql/SqlClient"
import { CallAnalytics, Usage } from "@voiceagent/domain/Billing"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Rows from "../Sql/Rows.js"

export interface Range {
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

const UsageRow = Schema.Struct({
  calls: Schema.NonNegativeInt,
  billed: Schema.NullOr(Rows.NumericInt),
  currency: Schema.NullOr(Schema.Trim)
})
const SpendRow = Schema.Struct({ kind: Schema.String, n: Schema.NonNegativeInt, total: Schema.NullOr(Rows.NumericInt) })
const OutcomeRow = Schema.Struct({
  outcome: Schema.String,
  n: Schema.NonNegativeInt,
  talk: Schema.NullOr(Rows.NumericInt)
})

/** Usage and call analytics over [from, to), read from the sessions and the ledger. */
export class Reports extends Effect.Service<Reports>()("Billing/Reports", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const within = (column: string, range: Range) =>
      sql.and([
        ...(range.from === undefined ? [] : [sql`${sql(column)} >= ${range.from}`]),
        ...(range.to === undefined ? [] : [sql`${sql(column)} < ${range.to}`]),
        sql`TRUE`
      ])

    const usage = Effect.fn("Reports.usage")(
      function*(tenantId: TenantId, range: Range) {
        const calls = yield* Rows.single(
          UsageRow,
          sql`
          SELECT count(*) AS calls, sum(billed_seconds) AS billed,
                 (SELECT currency FROM tenants WHERE id = ${tenantId}) AS currency
          FROM call_sessions WHERE tenant_id = ${tenantId} AND status = 'ENDED' AND ${within("ended_at", range)}
        `
        )
        const spend = yield* Rows.findAll(
          SpendRow,
          sql`
          SELECT kind, count(*) AS n, -sum(amount) AS total FROM ledger_transactions
          WHERE tenant_id = ${tenantId} AND kind <> 'top_up' AND ${within("created_at", range)}
          GROUP BY kind
        `
        )
        const of = (kind: string) => spend.find((s) => s.kind === kind)
        const billedSeconds = calls.billed ?? 0
        const voice = of("call_charge")?.total ?? 0
        const sms = of("sms_charge")?.total ?? 0
        const chatApp = of("chatapp_charge")?.total ?? 0
        return new Usage({
          from: range.from ?? null,
          to: range.to ?? null,
          currency: calls.currency ?? "USD",
          calls: calls.calls,
          minutes: Math.round((billedSeconds / 60) * 100) / 100,
          billedSeconds,
          messages: { sms: of("sms_charge")?.n ?? 0, chatApp: of("chatapp_charge")?.n ?? 0 },
          spend: { voice, sms, chatApp, total: voice + sms + chatApp }
        }, Rows.validated)
      },
      Effect.orDie
    )

    const callAnalytics = Effect.fn("Reports.callAnalytics")(
      function*(tenantId: TenantId, range: Range) {
        const rows = yield* Rows.findAll(
          OutcomeRow,
          sql`
          SELECT outcome, count(*) AS n, sum(duration_seconds) AS talk FROM call_sessions
          WHERE tenant_id = ${tenantId} AND status = 'ENDED' AND ${within("ended_at", range)}
          GROUP BY outcome
        `
        )
        const count = (outcome: string) => rows.find((r) => r.outcome === outcome)?.n ?? 0
        const total = rows.reduce((sum, r) => sum + r.n, 0)
        const answered = count("ANSWERED")
        const talk = rows.find((r) => r.outcome === "ANSWERED")?.talk ?? 0
        return new CallAnalytics({
          from: range.from ?? null,
          to: range.to ?? null,
          total,
          byOutcome: {
            ANSWERED: answered,
            UNANSWERED: count("UNANSWERED"),
            BUSY: count("BUSY"),
            FAILED: count("FAILED"),
            CANCELED: count("CANCELED")
          },
          answerRate: total === 0 ? 0 : Math.round((answered / total) * 10_000) / 10_000,
          averageDurationSeconds: answered === 0 ? 0 : Math.round((talk / answered) * 100) / 100
        }, Rows.validated)
      },
      Effect.orDie
    )

    return { usage, callAnalytics } as const
  })
}) {}
