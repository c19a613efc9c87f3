import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CampaignApi } from "@voiceagent/domain/CampaignApi"
import {
  ContactExists,
  type ContactInput,
  ContactListInUse,
  ContactListNameTaken,
  ContactListNotFound,
  ContactNotFound,
  DEFAULT_CONTACTS_LIMIT,
  defaultCountryOf,
  ImportResult,
  InvalidContact,
  InvalidCsv,
  type InvalidRow,
  MissingPhoneColumn,
  TooManyRows,
  UnsupportedFileType,
  validateContact
} from "@voiceagent/domain/Contacts"
import type { ContactListId, TenantId } from "@voiceagent/domain/Ids"
import { mergePatch } from "@voiceagent/domain/Json"
import { makePage } from "@voiceagent/domain/Pagination"
import { ContactListsRepo } from "@voiceagent/runner/Contacts/ContactListsRepo"
import { ContactsRepo, type ListScope } from "@voiceagent/runner/Contacts/ContactsRepo"
import { parseContactsCsv } from "@voiceagent/runner/Contacts/CsvContacts"
import { type CandidateRow, planImport } from "@voiceagent/runner/Contacts/ImportPlan"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

export const ContactListsHttpLive = HttpApiBuilder.group(
  CampaignApi,
  "contactLists",
  (handlers) =>
    Effect.gen(function*() {
      const lists = yield* ContactListsRepo
      const contacts = yield* ContactsRepo

      const listOf = (tenantId: TenantId, id: ContactListId) =>
        Effect.flatMap(
          lists.find(tenantId, id),
          Option.match({
            onNone: () => Effect.fail(new ContactListNotFound()),
            onSome: Effect.succeed
          })
        )

      /** Validates, de-duplicates and inserts in one transaction; answers the spec's import result. */
      const importRows = (scope: ListScope, defaultCountry: string | null, rows: ReadonlyArray<CandidateRow>) =>
        Effect.gen(function*() {
          const plan = planImport(rows, defaultCountry)
          const inserted = yield* contacts.insertMany(scope, plan.valid.map((v) => v.contact))
          if (Option.isNone(inserted)) return yield* new ContactListNotFound()
          const alreadyInList: Array<InvalidRow> = plan.valid
            .filter((_, i) => !inserted.value[i])
            .map((v) => ({ row: v.row, phone: v.phone, reason: "duplicate" }))
          const invalidRows = [...plan.invalid, ...alreadyInList].sort((a, b) => a.row - b.row)
          return new ImportResult({
            imported: inserted.value.filter(Boolean).length,
            skipped: invalidRows.length,
            invalidRows
          })
        })

      const candidateOf = (input: ContactInput, row: number): CandidateRow => ({
        row,
        phone: input.phoneNumber,
        name: input.name,
        email: input.email,
        metadata: input.metadata
      })

      return handlers
        .handle("createContactList", ({ payload }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            lists.create(tenantId, payload.name, payload.metadata ?? {}).pipe(
              Effect.catchTag("ListNameTaken", () =>
                new ContactListNameTaken())
            )))
        .handle("listContactLists", ({ urlParams }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            Effect.map(lists.list(tenantId, urlParams), ({ items, total }) =>
              makePage(items, total, urlParams))))
        .handle("getContactList", ({ path }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            listOf(tenantId, path.id)))
        .handle("updateContactList", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const updated = yield* lists.update(tenantId, path.id, {
              ...(payload.name === undefined ? {} : { name: payload.name }),
              ...(payload.metadata === undefined ? {} : { metadata: payload.metadata })
            }).pipe(Effect.catchTag("ListNameTaken", () =>
              new ContactListNameTaken()))
            return yield* Option.match(updated, {
              onNone: () =>
                Effect.fail(new ContactListNotFound()),
              onSome: Effect.succeed
            })
          }))
        .handle("deleteContactList", ({ path }) =>
          Effect.flatMap(CurrentTenant, ({ tenantId }) =>
            Effect.flatMap(
              lists.remove(tenantId, path.id),
              (result): Effect.Effect<void, ContactListInUse | ContactListNotFound> =>
                result === "deleted"
                  ? Effect.void
                  : result === "in_use"
                  ? Effect.fail(new ContactListInUse())
                  : Effect.fail(new ContactListNotFound())
            )))
        .handle("uploadContacts", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const list = yield* listOf(tenantId, path.id)
            if (!payload.file.name.toLowerCase().endsWith(".csv")) {
              return yield* new UnsupportedFileType()
            }
            const fs = yield* FileSystem.FileSystem
            const text = yield* fs.readFileString(payload.file.path, "utf8").pipe(Effect.orDie)
            const parsed = parseContactsCsv(text)
            if (Either.isLeft(parsed)) {
              const problem = parsed.left
              switch (problem._tag) {
                case "InvalidCsv":
                  return yield* new InvalidCsv({ message: problem.message })
                case "MissingPhoneColumn":
                  return yield* new MissingPhoneColumn({ details: { headers: problem.headers } })
                case "TooManyRows":
                  return yield* new TooManyRows({ details: { rows: problem.rows, limit: 500 } })
              }
            }
            return yield* importRows({ tenantId, listId: list.id }, defaultCountryOf(list.metadata), parsed.right)
          }))
        .handle("listContacts", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            // the list's count is kept in the same transaction as every write of its contacts
            const { contactCount: total } = yield* listOf(tenantId, path.listId)
            const scope = { tenantId, listId: path.listId }
            if (urlParams.page === undefined && urlParams.limit === undefined) {
              const data = yield* contacts.page(scope, 0, undefined)
              return { data, total: data.length, page: 1, limit: data.length }
            }
            const page = urlParams.page ?? 1
            const limit = urlParams.limit ?? DEFAULT_CONTACTS_LIMIT
            const data = yield* contacts.page(scope, (page - 1) * limit, limit)
            return { data, total, page, limit }
          }))
        .handle("createContact", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const list = yield* listOf(tenantId, path.listId)
            const checked = validateContact(
              { phone: payload.phoneNumber, name: payload.name, email: payload.email, metadata: payload.metadata },
              defaultCountryOf(list.metadata)
            )
            if (Either.isLeft(checked)) {
              return yield* new InvalidContact({
                message: `The contact is invalid: ${checked.left}`,
                details: { reason: checked.left }
              })
            }
            const scope = { tenantId, listId: list.id }
            const inserted = yield* contacts.insertMany(scope, [checked.right])
            if (Option.isNone(inserted)) {
              return yield* new ContactListNotFound()
            }
            if (!inserted.value[0]) {
              return yield* new ContactExists()
            }
            return yield* contacts.findByPhone(scope, checked.right.phoneNumber).pipe(Effect.flatten, Effect.orDie)
          }))
        .handle("createContactsBulk", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const list = yield* listOf(tenantId, path.listId)
            return yield* importRows(
              { tenantId, listId: list.id },
              defaultCountryOf(list.metadata),
              payload.contacts.map((c, i) =>
                candidateOf(c, i + 1)
              )
            )
          }))
        .handle("getContact", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* listOf(tenantId, path.listId)
            const found = yield* contacts.find({ tenantId, listId: path.listId }, path.contactId)
            return yield* Option.match(found, {
              onNone: () =>
                Effect.fail(new ContactNotFound()),
              onSome: Effect.succeed
            })
          }))
        .handle("updateContact", ({ path, payload }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            const list = yield* listOf(tenantId, path.listId)
            const scope = { tenantId, listId: list.id }
            const current = yield* contacts.find(scope, path.contactId)
            if (Option.isNone(current)) {
              return yield* new ContactNotFound()
            }
            const checked = validateContact(
              {
                phone: payload.phoneNumber ?? current.value.phoneNumber,
                name: payload.name === undefined ? current.value.name : payload.name,
                email: payload.email === undefined ? current.value.email : payload.email,
                metadata: payload.metadata === undefined
                  ? current.value.metadata
                  : mergePatch(current.value.metadata, payload.metadata)
              },
              defaultCountryOf(list.metadata)
            )
            if (Either.isLeft(checked)) {
              return yield* new InvalidContact({
                message: `The contact is invalid: ${checked.left}`,
                details: { reason: checked.left }
              })
            }
            const updated = yield* contacts.update(scope, path.contactId, checked.right).pipe(
              Effect.catchTag("PhoneAlreadyInList", () =>
                new ContactExists())
            )
            return yield* Option.match(updated, {
              onNone: () => Effect.fail(new ContactNotFound()),
              onSome: Effect.succeed
            })
          }))
        .handle("deleteContact", ({ path }) =>
          Effect.gen(function*() {
            const { tenantId } = yield* CurrentTenant
            yield* listOf(tenantId, path.listId)
            const removed = yield* contacts.remove({ tenantId, listId: path.listId }, path.contactId)
            if (!removed) return yield* new ContactNotFound()
          }))
    })
)
