import * as SqlClient from "@effect/sql/SqlClient"
import { ApiKey } from "@voiceagent/domain/ApiKeys"
import { type AgentId, ApiKeyId, TenantId, type UserId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import { type Tenant, type User } from "@voiceagent/domain/Users"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"
import { userAndTenant, UserAndTenantColumns } from "../Users/UsersRepo.js"

export interface NewApiKey {
  readonly id: ApiKeyId
  readonly userId: UserId
  readonly name: string
  readonly prefix: string
  readonly keyHash: Uint8Array
  readonly signingSecret: string
  readonly webhookUrl: string | null
  readonly agentId: AgentId | null
  readonly expiresAt: Date | null
}

/**
 * What authentication needs to know about a presented key, with its user and tenant: one indexed
 * lookup by hash, so a handler answering with the caller's account reads nothing more.
 */
export interface KeyCredential {
  readonly id: ApiKeyId
  readonly keyHash: Uint8Array
  readonly expiresAt: Date | null
  readonly lastUsedAt: Date | null
  readonly user: User
  readonly tenant: Tenant | null
}

const KeyCredentialRow = Schema.transform(
  Schema.Struct({
    id: ApiKeyId,
    keyHash: Schema.Uint8ArrayFromSelf,
    expiresAt: Schema.NullOr(Schema.DateFromSelf),
    lastUsedAt: Schema.NullOr(Schema.DateFromSelf),
    ...UserAndTenantColumns
  }),
  Schema.Any as Schema.Schema<KeyCredential>,
  {
    strict: false,
    decode: (row): KeyCredential => ({
      id: row.id,
      keyHash: row.keyHash,
      expiresAt: row.expiresAt,
      lastUsedAt: row.lastUsedAt,
      ...userAndTenant(row)
    }),
    encode: (credential) => credential
  }
)

/** Keys are visible to every user of the owner's tenant, or to the owner alone when it has none. */
export interface KeyScope {
  readonly userId: UserId
  readonly tenantId: TenantId | null
}

const ApiKeyRow = Rows.of(ApiKey)

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("ApiKeys/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const scopeFilter = (scope: KeyScope) =>
      scope.tenantId === null
        ? sql`k.user_id = ${scope.userId}`
        : sql`k.user_id IN (SELECT id FROM users WHERE tenant_id = ${scope.tenantId})`

    const insert = (key: NewApiKey) =>
      Rows.single(
        Schema.Struct({ createdAt: Schema.DateFromSelf, tenantId: Schema.NullOr(TenantId) }),
        sql`
        INSERT INTO api_keys (id, user_id, name, prefix, key_hash, signing_secret, webhook_url, agent_id, expires_at)
        VALUES (${key.id}, ${key.userId}, ${key.name}, ${key.prefix}, ${Buffer.from(key.keyHash)},
                ${key.signingSecret}, ${key.webhookUrl}, ${key.agentId}, ${key.expiresAt})
        RETURNING created_at, (SELECT tenant_id FROM users WHERE id = ${key.userId}) AS tenant_id
      `
      ).pipe(
        Effect.orDie,
        // the webhook listener reads the tenant's keys
        Effect.tap((row) => row.tenantId === null ? Effect.void : ListenerCache.invalidate(row.tenantId)),
        Effect.map((row) => row.createdAt)
      )

    const list = (scope: KeyScope, page: PageRequest) =>
      Rows.page(
        ApiKeyRow,
        sql`
          SELECT k.id, k.name, k.prefix, k.expires_at, k.webhook_url, k.agent_id, k.created_at, k.last_used_at
          FROM api_keys k
          WHERE k.revoked_at IS NULL AND ${scopeFilter(scope)}
          ORDER BY k.created_at DESC, k.id DESC
          LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM api_keys k WHERE k.revoked_at IS NULL AND ${scopeFilter(scope)}`
      )

    /** Marks the key revoked; false when no live key with that id is in scope. */
    const revoke = (scope: KeyScope, id: ApiKeyId) =>
      Rows.findAll(
        Schema.Struct({ id: ApiKeyId, tenantId: Schema.NullOr(TenantId) }),
        sql`
        UPDATE api_keys k SET revoked_at = now()
        WHERE k.id = ${id} AND k.revoked_at IS NULL AND ${scopeFilter(scope)}
        RETURNING k.id, (SELECT tenant_id FROM users WHERE id = k.user_id) AS tenant_id
      `
      ).pipe(
        Effect.orDie,
        Effect.tap((rows) =>
          Effect.forEach(rows, (r) => r.tenantId === null ? Effect.void : ListenerCache.invalidate(r.tenantId))
        ),
        Effect.map((rows) => rows.length > 0)
      )

    const findCredential = (keyHash: Uint8Array) =>
      Rows.findOne(
        KeyCredentialRow,
        sql`
        SELECT k.id, k.key_hash, k.expires_at, k.last_used_at,
               u.id AS user_id, u.email, u.tenant_id, u.created_at AS user_created_at,
               t.name AS tenant_name, t.currency AS tenant_currency, t.created_at AS tenant_created_at
        FROM api_keys k JOIN users u ON u.id = k.user_id LEFT JOIN tenants t ON t.id = u.tenant_id
        WHERE k.key_hash = ${Buffer.from(keyHash)} AND k.revoked_at IS NULL
      `
      ).pipe(Effect.orDie)

    const touchLastUsed = (id: ApiKeyId, at: Date) =>
      sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)

    return { insert, list, revoke, findCredential, touchLastUsed } as const
  })
}) {}
