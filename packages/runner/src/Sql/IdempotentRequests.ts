import * as SqlClient from "@effect/sql/SqlClient"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Effect from "effect/Effect"

export type Claim =
  | { readonly _tag: "New" }
  | { readonly _tag: "Replay"; readonly response: unknown }
  | { readonly _tag: "Conflict" }
  | { readonly _tag: "InProgress" }

/**
 * Requests sent with an `Idempotency-Key`: the first claims the key (a unique row), its answer is
 * kept, and a retry with the same body gets that answer back; another body with the key is refused.
 * A request that fails gives its key back.
 */
export class IdempotentRequests extends Effect.Service<IdempotentRequests>()("Sql/IdempotentRequests", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const claim = (tenantId: TenantId, scope: string, key: string, requestHash: string) =>
      Effect.gen(function*() {
        const inserted = yield* sql<{ key: string }>`
          INSERT INTO idempotent_requests (tenant_id, scope, key, request_hash)
          VALUES (${tenantId}, ${scope}, ${key}, ${requestHash})
          ON CONFLICT DO NOTHING RETURNING key
        `
        if (inserted.length > 0) return { _tag: "New" } as Claim
        const [existing] = yield* sql<{ requestHash: string; response: unknown }>`
          SELECT request_hash, response FROM idempotent_requests WHERE tenant_id = ${tenantId} AND scope = ${scope} AND key = ${key}
        `
        if (existing === undefined) return { _tag: "InProgress" } as Claim
        if (existing.requestHash !== requestHash) return { _tag: "Conflict" } as Claim
        return existing.response === null ? { _tag: "InProgress" } as Claim : { _tag: "Replay", response: existing.response } as Claim
      }).pipe(Effect.orDie)

    const complete = (tenantId: TenantId, scope: string, key: string, response: unknown) =>
      sql`
        UPDATE idempotent_requests SET response = ${JSON.stringify(response)}::jsonb
        WHERE tenant_id = ${tenantId} AND scope = ${scope} AND key = ${key}
      `.pipe(Effect.asVoid, Effect.orDie)

    const release = (tenantId: TenantId, scope: string, key: string) =>
      sql`
        DELETE FROM idempotent_requests WHERE tenant_id = ${tenantId} AND scope = ${scope} AND key = ${key} AND response IS NULL
      `.pipe(Effect.asVoid, Effect.orDie)

    return { claim, complete, release } as const
  })
}) {}
