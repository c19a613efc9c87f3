import * as SqlClient from "@effect/sql/SqlClient"
import { Contact, type ValidContact } from "@voiceagent/domain/Contacts"
import { ContactId, ContactListId, type TenantId } from "@voiceagent/domain/Ids"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"

export class PhoneAlreadyInList extends Data.TaggedError("PhoneAlreadyInList")<{}> {}

const ContactRow = Rows.of(Contact, { metadata: Rows.JsonObjectColumn })
const IdRow = Schema.Struct({ id: ContactId })
const ListIdRow = Schema.Struct({ id: ContactListId })
const PhoneRow = Schema.Struct({ phoneNumber: Schema.String })

const COLUMNS = "id, tenant_id, contact_list_id, phone_number, name, email, metadata, created_at, updated_at"

export interface ListScope {
  readonly tenantId: TenantId
  readonly listId: ContactListId
}

/**
 * Contacts of one list. Every write runs in a transaction with the list row locked, and keeps
 * `contact_lists.contact_count` equal to the number of contacts.
 */
export class ContactsRepo extends Effect.Service<ContactsRepo>()("Contacts/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const lockList = (scope: ListScope) =>
      Rows.findAll(
        ListIdRow,
        sql`
        SELECT id FROM contact_lists WHERE id = ${scope.listId} AND tenant_id = ${scope.tenantId} FOR UPDATE
      `
      ).pipe(Effect.map((rows) => rows.length > 0))

    const adjustCount = (listId: ContactListId, delta: number) =>
      delta === 0
        ? Effect.void
        : sql`UPDATE contact_lists SET contact_count = contact_count + ${delta}, updated_at = now()
          WHERE id = ${listId}`

    /**
     * Inserts the contacts in one statement, skipping phones the list already has. Answers, in
     * the input's order, whether each one was inserted; `None` when the list is not the tenant's.
     */
    const insertMany = Effect.fn("ContactsRepo.insertMany")(
      function*(scope: ListScope, contacts: ReadonlyArray<ValidContact>) {
        if (!(yield* lockList(scope))) return Option.none<ReadonlyArray<boolean>>()
        if (contacts.length === 0) return Option.some<ReadonlyArray<boolean>>([])
        const rows = contacts.map((c) => ({
          id: uuidv7(),
          tenantId: scope.tenantId,
          contactListId: scope.listId,
          phoneNumber: c.phoneNumber,
          name: c.name,
          email: c.email,
          metadata: JSON.stringify(c.metadata)
        }))
        const inserted = yield* Rows.findAll(
          PhoneRow,
          sql`
          INSERT INTO contacts (id, tenant_id, contact_list_id, phone_number, name, email, metadata)
          SELECT id, tenant_id, contact_list_id, phone_number, name, email, metadata::jsonb
          FROM jsonb_to_recordset(${
            JSON.stringify(rows.map((r) => ({
              id: r.id,
              tenant_id: r.tenantId,
              contact_list_id: r.contactListId,
              phone_number: r.phoneNumber,
              name: r.name,
              email: r.email,
              metadata: r.metadata
            })))
          }::jsonb)
            AS x(id uuid, tenant_id uuid, contact_list_id uuid, phone_number text, name text, email text, metadata text)
          ON CONFLICT (contact_list_id, phone_number) DO NOTHING
          RETURNING phone_number
        `
        )
        yield* adjustCount(scope.listId, inserted.length)
        const insertedPhones = new Set(inserted.map((r) => r.phoneNumber))
        return Option.some(contacts.map((c) => insertedPhones.has(c.phoneNumber)))
      },
      sql.withTransaction,
      Effect.orDie
    )

    /**
     * Oldest first; `limit` undefined reads the whole list. The offset is walked in the
     * (list, id) index alone and only the page's rows are read from the table.
     */
    const page = (scope: ListScope, offset: number, limit: number | undefined) =>
      Rows.findAll(
        ContactRow,
        limit === undefined
          ? sql`
          SELECT ${columns} FROM contacts
          WHERE contact_list_id = ${scope.listId} AND tenant_id = ${scope.tenantId}
          ORDER BY id
        `
          : sql`
          SELECT ${sql.literal(COLUMNS.split(", ").map((c) => `c.${c}`).join(", "))}
          FROM contacts c
          JOIN (
            SELECT id FROM contacts WHERE contact_list_id = ${scope.listId}
            ORDER BY id LIMIT ${limit} OFFSET ${offset}
          ) AS page ON page.id = c.id
          WHERE c.tenant_id = ${scope.tenantId}
          ORDER BY c.id
        `
      ).pipe(Effect.orDie)

    const find = (scope: ListScope, id: ContactId) =>
      Rows.findOne(
        ContactRow,
        sql`
        SELECT ${columns} FROM contacts WHERE id = ${id} AND contact_list_id = ${scope.listId}
          AND tenant_id = ${scope.tenantId}
      `
      ).pipe(Effect.orDie)

    const findByPhone = (scope: ListScope, phoneNumber: string) =>
      Rows.findOne(
        ContactRow,
        sql`
        SELECT ${columns} FROM contacts
        WHERE contact_list_id = ${scope.listId} AND tenant_id = ${scope.tenantId} AND phone_number = ${phoneNumber}
      `
      ).pipe(Effect.orDie)

    /** A contact of the tenant, in whichever list. */
    const findForTenant = (tenantId: TenantId, id: ContactId) =>
      Rows.findOne(ContactRow, sql`SELECT ${columns} FROM contacts WHERE id = ${id} AND tenant_id = ${tenantId}`).pipe(
        Effect.orDie
      )

    const phoneTaken = (e: Parameters<typeof isUniqueViolation>[0]) =>
      isUniqueViolation(e, "contacts_list_phone_key") ? Effect.fail(new PhoneAlreadyInList()) : Effect.die(e)

    const update = (scope: ListScope, id: ContactId, next: ValidContact) =>
      Rows.findOne(
        ContactRow,
        sql`
        UPDATE contacts SET
          phone_number = ${next.phoneNumber},
          name = ${next.name},
          email = ${next.email},
          metadata = ${JSON.stringify(next.metadata)}::jsonb,
          updated_at = now()
        WHERE id = ${id} AND contact_list_id = ${scope.listId} AND tenant_id = ${scope.tenantId}
        RETURNING ${columns}
      `
      ).pipe(Effect.catchTag("SqlError", phoneTaken))

    const remove = Effect.fn("ContactsRepo.remove")(
      function*(scope: ListScope, id: ContactId) {
        if (!(yield* lockList(scope))) return false
        const deleted = yield* Rows.findAll(
          IdRow,
          sql`
          DELETE FROM contacts WHERE id = ${id} AND contact_list_id = ${scope.listId} RETURNING id
        `
        )
        yield* adjustCount(scope.listId, -deleted.length)
        return deleted.length > 0
      },
      sql.withTransaction,
      Effect.orDie
    )

    return { insertMany, page, find, findByPhone, findForTenant, update, remove } as const
  })
}) {}
