import * as SqlClient from "@effect/sql/SqlClient"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rows from "./Rows.js"

/**
 * What a request's `Idempotency-Key` finds: a new key, the first
 * request's answer, another body's key, or one still running.
 */
export type Claim<A> = Data.TaggedEnum<{
  New: {}
  Replay: { readonly response: A }
  Conflict: {}
  InProgress: {}
}>

interface ClaimDefinition extends Data.TaggedEnum.WithGenerics<1> {
  readonly taggedEnum: Claim<this["A"]>
}

export const Claim = Data.taggedEnum<ClaimDefinition>()

/**
 * Requests sent with an `Idempotency-Key`: the first claims the key (a unique row), its answer is
 * kept (encoded through the answer's schema), and a retry with the same body gets that answer back
 * (decoded through it: a kept answer the schema no longer reads is a defect, not a cast); another
 * body with the key is refused. A request that fails gives its key back.
 */
export class IdempotentRequests extends Effect.Service<IdempotentRequests>()("Sql/IdempotentRequests", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const claim = Effect.fn("IdempotentRequests.claim")(
      function*<A, I>(
        response: Schema.Schema<A, I>,
        tenantId: TenantId,
        scope: string,
        key: string,
        requestHash: string
      ) {
        const inserted = yield* Rows.findAll(
          Schema.Struct({ key: Schema.String }),
          sql`
          INSERT INTO idempotent_requests (tenant_id, scope, key, request_hash)
          VALUES (${tenantId}, ${scope}, ${key}, ${requestHash})
          ON CONFLICT DO NOTHING RETURNING key
        `
        )
        if (inserted.length > 0) return Claim.New<A>()
        const existing = yield* Rows.findOne(
          Schema.Struct({ requestHash: Schema.String, response: Schema.NullOr(response) }),
          sql`
            SELECT request_hash, response FROM idempotent_requests WHERE tenant_id = ${tenantId} AND scope = ${scope}
              AND key = ${key}
          `
        )
        if (Option.isNone(existing)) return Claim.InProgress<A>()
        if (existing.value.requestHash !== requestHash) return Claim.Conflict<A>()
        const kept = existing.value.response
        return kept === null ? Claim.InProgress<A>() : Claim.Replay<A>({ response: kept })
      },
      Effect.orDie
    )

    const complete = <A, I>(response: Schema.Schema<A, I>, tenantId: TenantId, scope: string, key: string, value: A) =>
      Effect.flatMap(Schema.encode(response)(value), (encoded) =>
        sql`
          UPDATE idempotent_requests SET response = ${JSON.stringify(encoded)}::jsonb
          WHERE tenant_id = ${tenantId} AND scope = ${scope} AND key = ${key}
        `).pipe(Effect.asVoid, Effect.orDie)

    const release = (tenantId: TenantId, scope: string, key: string) =>
      sql`
        DELETE FROM idempotent_requests WHERE tenant_id = ${tenantId} AND scope = ${scope} AND key = ${key}
          AND response IS NULL
      `.pipe(Effect.asVoid, Effect.orDie)

    return { claim, complete, release } as const
  })
}) {}
