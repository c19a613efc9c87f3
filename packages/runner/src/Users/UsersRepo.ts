import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { TenantId, UserId } from "@voiceagent/domain/Ids"
import { Tenant, User } from "@voiceagent/domain/Users"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"

export interface UserRecord {
  readonly user: User
  readonly passwordHash: string
  readonly tenant: Tenant | null
}

/** A tenant's columns; `currency` is a `char(3)`. */
export const TenantRow = Rows.of(Tenant, { currency: Schema.Trim })

/** The columns of `users` joined to `tenants`: the user's `userId`, `userCreatedAt`, the tenant's prefixed `tenant`. */
export const UserAndTenantColumns = {
  userId: UserId,
  email: Schema.String,
  tenantId: Schema.NullOr(TenantId),
  userCreatedAt: Schema.DateFromSelf,
  tenantName: Schema.NullOr(Schema.String),
  tenantCurrency: Schema.NullOr(Schema.Trim),
  tenantCreatedAt: Schema.NullOr(Schema.DateFromSelf)
} as const

/** A user and its tenant from the decoded `UserAndTenantColumns` of a row. */
export const userAndTenant = (
  row: Schema.Struct.Type<typeof UserAndTenantColumns>
): { readonly user: User; readonly tenant: Tenant | null } => ({
  user: new User(
    { id: row.userId, email: row.email, tenantId: row.tenantId, createdAt: row.userCreatedAt },
    Rows.validated
  ),
  tenant:
    row.tenantId === null || row.tenantName === null || row.tenantCurrency === null || row.tenantCreatedAt === null
      ? null
      : new Tenant({
        id: row.tenantId,
        name: row.tenantName,
        currency: row.tenantCurrency,
        createdAt: row.tenantCreatedAt
      }, Rows.validated)
})

const UserRow = Rows.of(User)

const UserRecordRow = Schema.transform(
  Schema.Struct({ ...UserAndTenantColumns, passwordHash: Schema.String }),
  Schema.Struct({
    user: Schema.typeSchema(User),
    tenant: Schema.NullOr(Schema.typeSchema(Tenant)),
    passwordHash: Schema.String
  }),
  {
    strict: false,
    decode: (row) => ({ ...userAndTenant(row), passwordHash: row.passwordHash }),
    encode: (record) => record as never
  }
)

export class EmailAlreadyUsed extends Data.TaggedError("EmailAlreadyUsed")<{}> {}

export class UsersRepo extends Effect.Service<UsersRepo>()("Users/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const selectUser = (where: Fragment) =>
      Rows.findOne(
        UserRecordRow,
        sql`
        SELECT u.id AS user_id, u.email, u.password_hash, u.tenant_id, u.created_at AS user_created_at,
               t.name AS tenant_name, t.currency AS tenant_currency, t.created_at AS tenant_created_at
        FROM users u LEFT JOIN tenants t ON t.id = u.tenant_id
        WHERE ${where}
      `
      ).pipe(Effect.orDie)

    const findByEmail = (email: string) => selectUser(sql`lower(u.email) = lower(${email})`)

    const findById = (id: UserId) => selectUser(sql`u.id = ${id}`)

    const insertTenant = (name: string) =>
      Rows.single(
        TenantRow,
        sql`
        INSERT INTO tenants (id, name) VALUES (${uuidv7()}, ${name})
        RETURNING id, name, currency, created_at
      `
      )

    /** Creates the user, and its tenant when a company name is given, in one transaction. */
    const create = Effect.fn("UsersRepo.create")(
      function*(input: { email: string; passwordHash: string; companyName: string | undefined }) {
        const tenant = input.companyName === undefined ? null : yield* insertTenant(input.companyName)
        const id = uuidv7()
        const user = yield* Rows.single(
          UserRow,
          sql`
          INSERT INTO users (id, email, password_hash, tenant_id)
          VALUES (${id}, ${input.email}, ${input.passwordHash}, ${tenant?.id ?? null})
          RETURNING id, email, tenant_id, created_at
        `
        )
        return { user, tenant }
      },
      sql.withTransaction,
      Effect.catchTag(
        "SqlError",
        (e) => isUniqueViolation(e, "users_email_key") ? Effect.fail(new EmailAlreadyUsed()) : Effect.die(e)
      )
    )

    /** Creates a tenant for a user without one; `None` when the user already has a tenant. */
    const createTenantFor = Effect.fn("UsersRepo.createTenantFor")(
      function*(userId: UserId, companyName: string) {
        const locked = yield* Rows.findOne(
          Schema.Struct({ tenantId: Schema.NullOr(TenantId) }),
          sql`SELECT tenant_id FROM users WHERE id = ${userId} FOR UPDATE`
        )
        if (Option.isNone(locked) || locked.value.tenantId !== null) return Option.none<Tenant>()
        const tenant = yield* insertTenant(companyName)
        yield* sql`UPDATE users SET tenant_id = ${tenant.id}, updated_at = now() WHERE id = ${userId}`
        return Option.some(tenant)
      },
      sql.withTransaction,
      Effect.orDie
    )

    const findTenant = (id: TenantId) =>
      Rows.findOne(TenantRow, sql`SELECT id, name, currency, created_at FROM tenants WHERE id = ${id}`).pipe(
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
