import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import type { TenantId, UserId } from "@voiceagent/domain/Ids"
import { Tenant, User } from "@voiceagent/domain/Users"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { v7 as uuidv7 } from "uuid"
import { isUniqueViolation } from "../Sql/SqlErrors.js"
import { fromDatabase } from "../Sql/Rows.js"

export interface UserRecord {
  readonly user: User
  readonly passwordHash: string
  readonly tenant: Tenant | null
}

interface UserRow {
  readonly id: string
  readonly email: string
  readonly passwordHash: string
  readonly tenantId: string | null
  readonly createdAt: Date
  readonly tenantName: string | null
  readonly tenantCurrency: string | null
  readonly tenantCreatedAt: Date | null
}

/** A user and its tenant from a row of `users` joined to `tenants` (the tenant's columns prefixed `tenant`). */
export const userAndTenant = (row: {
  readonly userId: string
  readonly email: string
  readonly tenantId: string | null
  readonly userCreatedAt: Date
  readonly tenantName: string | null
  readonly tenantCurrency: string | null
  readonly tenantCreatedAt: Date | null
}): { readonly user: User; readonly tenant: Tenant | null } => ({
  user: new User({
    id: row.userId as UserId,
    email: row.email,
    tenantId: row.tenantId as TenantId | null,
    createdAt: row.userCreatedAt
  }, fromDatabase),
  tenant: row.tenantId === null
    ? null
    : new Tenant({
      id: row.tenantId as TenantId,
      name: row.tenantName!,
      currency: row.tenantCurrency!.trim(),
      createdAt: row.tenantCreatedAt!
    }, fromDatabase)
})

const toRecord = (row: UserRow): UserRecord => ({
  ...userAndTenant({ ...row, userId: row.id, userCreatedAt: row.createdAt }),
  passwordHash: row.passwordHash
})

export class EmailAlreadyUsed extends Data.TaggedError("EmailAlreadyUsed")<{}> {}

export class UsersRepo extends Effect.Service<UsersRepo>()("Users/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const selectUser = (where: Fragment) =>
      sql<UserRow>`
        SELECT u.id, u.email, u.password_hash, u.tenant_id, u.created_at,
               t.name AS tenant_name, t.currency AS tenant_currency, t.created_at AS tenant_created_at
        FROM users u LEFT JOIN tenants t ON t.id = u.tenant_id
        WHERE ${where}
      `.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRecord)), Effect.orDie)

    const findByEmail = (email: string) => selectUser(sql`lower(u.email) = lower(${email})`)

    const findById = (id: UserId) => selectUser(sql`u.id = ${id}`)

    const insertTenant = (name: string) =>
      sql<{ id: string; createdAt: Date; currency: string }>`
        INSERT INTO tenants (id, name) VALUES (${uuidv7()}, ${name})
        RETURNING id, created_at, currency
      `.pipe(Effect.map(([row]) =>
        new Tenant({ id: row!.id as TenantId, name, currency: row!.currency.trim(), createdAt: row!.createdAt }, fromDatabase)
      ))

    /** Creates the user, and its tenant when a company name is given, in one transaction. */
    const create = (input: { email: string; passwordHash: string; companyName: string | undefined }) =>
      Effect.gen(function*() {
        const tenant = input.companyName === undefined ? null : yield* insertTenant(input.companyName)
        const id = uuidv7()
        const [row] = yield* sql<{ createdAt: Date }>`
          INSERT INTO users (id, email, password_hash, tenant_id)
          VALUES (${id}, ${input.email}, ${input.passwordHash}, ${tenant?.id ?? null})
          RETURNING created_at
        `
        const user = new User({
          id: id as UserId,
          email: input.email,
          tenantId: tenant?.id ?? null,
          createdAt: row!.createdAt
        }, fromDatabase)
        return { user, tenant }
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", (e) =>
          isUniqueViolation(e, "users_email_key") ? Effect.fail(new EmailAlreadyUsed()) : Effect.die(e))
      )

    /** Creates a tenant for a user without one; `None` when the user already has a tenant. */
    const createTenantFor = (userId: UserId, companyName: string) =>
      Effect.gen(function*() {
        const locked = yield* sql<{ tenantId: string | null }>`
          SELECT tenant_id FROM users WHERE id = ${userId} FOR UPDATE
        `
        if (locked[0] === undefined || locked[0].tenantId !== null) return Option.none<Tenant>()
        const tenant = yield* insertTenant(companyName)
        yield* sql`UPDATE users SET tenant_id = ${tenant.id}, updated_at = now() WHERE id = ${userId}`
        return Option.some(tenant)
      }).pipe(sql.withTransaction, Effect.orDie)

    const findTenant = (id: TenantId) =>
      sql<{ id: string; name: string; currency: string; createdAt: Date }>`
        SELECT id, name, currency, created_at FROM tenants WHERE id = ${id}
      `.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) =>
            new Tenant({ id: row.id as TenantId, name: row.name, currency: row.currency.trim(), createdAt: row.createdAt }, fromDatabase))
        ),
        Effect.orDie
      )

    const renameTenant = (id: TenantId, name: string) =>
      sql`UPDATE tenants SET name = ${name}, updated_at = now() WHERE id = ${id}`.pipe(
        Effect.zipRight(findTenant(id)),
        Effect.orDie
      )

    return { findByEmail, findById, create, createTenantFor, findTenant, renameTenant } as const
  })
}) {}
