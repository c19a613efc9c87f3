import * as SqlClient from "@effect/sql/SqlClient"
import { ContactList } from "@voiceagent/domain/Contacts"
import { ContactListId, type TenantId } from "@voiceagent/domain/Ids"
import { type JsonObject, mergePatch } from "@voiceagent/domain/Json"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"

export class ListNameTaken extends Data.TaggedError("ListNameTaken")<{}> {}

const ContactListRow = Rows.of(ContactList, { metadata: Rows.JsonObjectColumn })
const IdRow = Schema.Struct({ id: ContactListId })

const COLUMNS = "id, tenant_id, name, metadata, contact_count, created_at, updated_at"

export class ContactListsRepo extends Effect.Service<ContactListsRepo>()("Contacts/ListsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const nameTaken = (e: { readonly _tag: "SqlError" } & Parameters<typeof isUniqueViolation>[0]) =>
      isUniqueViolation(e, "contact_lists_tenant_name_key") ? Effect.fail(new ListNameTaken()) : Effect.die(e)

    const create = (tenantId: TenantId, name: string, metadata: JsonObject) =>
      Rows.single(
        ContactListRow,
        sql`
        INSERT INTO contact_lists (id, tenant_id, name, metadata)
        VALUES (${uuidv7()}, ${tenantId}, ${name}, ${JSON.stringify(metadata)}::jsonb)
        RETURNING ${columns}
      `
      ).pipe(Effect.catchTag("SqlError", nameTaken))

    const list = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        ContactListRow,
        sql`
          SELECT ${columns} FROM contact_lists WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM contact_lists WHERE tenant_id = ${tenantId}`
      )

    /** The list, if it is the tenant's; `lock` holds its row until the transaction ends. */
    const find = (tenantId: TenantId, id: ContactListId, options: { readonly lock?: boolean } = {}) =>
      Rows.findOne(
        ContactListRow,
        sql`
        SELECT ${columns} FROM contact_lists WHERE id = ${id} AND tenant_id = ${tenantId}
        ${options.lock === true ? sql.literal("FOR UPDATE") : sql.literal("")}
      `
      ).pipe(Effect.orDie)

    const update = Effect.fn("ContactListsRepo.update")(
      function*(tenantId: TenantId, id: ContactListId, patch: { name?: string; metadata?: JsonObject }) {
        const found = yield* find(tenantId, id, { lock: true })
        if (Option.isNone(found)) return Option.none<ContactList>()
        const metadata = patch.metadata === undefined
          ? found.value.metadata
          : mergePatch(found.value.metadata, patch.metadata)
        const updated = yield* Rows.single(
          ContactListRow,
          sql`
          UPDATE contact_lists SET
            name = ${patch.name ?? found.value.name},
            metadata = ${JSON.stringify(metadata)}::jsonb,
            updated_at = now()
          WHERE id = ${id}
          RETURNING ${columns}
        `
        )
        return Option.some(updated)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", nameTaken)
    )

    /** Deletes the list and its contacts, unless a scheduled, running or paused campaign holds it. */
    const remove = Effect.fn("ContactListsRepo.remove")(
      function*(tenantId: TenantId, id: ContactListId) {
        const deleted = yield* Rows.findAll(
          IdRow,
          sql`
          DELETE FROM contact_lists l WHERE l.id = ${id} AND l.tenant_id = ${tenantId}
            AND NOT EXISTS (
              SELECT 1 FROM campaigns c
              WHERE c.contact_list_id = l.id AND c.status IN ('SCHEDULED', 'RUNNING', 'PAUSED')
            )
          RETURNING l.id
        `
        )
        if (deleted.length > 0) return "deleted" as const
        const exists = yield* sql`SELECT 1 FROM contact_lists WHERE id = ${id} AND tenant_id = ${tenantId}`
        return exists.length > 0 ? "in_use" as const : "not_found" as const
      },
      Effect.orDie
    )

    return { create, list, find, update, remove } as const
  })
}) {}
