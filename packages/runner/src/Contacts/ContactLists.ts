/**
 * What the contact-list API does, as a service: the HTTP handlers call it, and so can users' tests
 * through the testing kit. Every contact, whether from a CSV file, a bulk request or one at a time,
 * is checked by the same rules (`validateContact`) against its list's default country.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as FileSystem from "@effect/platform/FileSystem"
import {
  ContactExists,
  type ContactInput,
  ContactListInUse,
  ContactListNameTaken,
  ContactListNotFound,
  ContactNotFound,
  type CreateContactListRequest,
  DEFAULT_CONTACTS_LIMIT,
  defaultCountryOf,
  ImportResult,
  InvalidContact,
  InvalidCsv,
  type InvalidRow,
  MissingPhoneColumn,
  TooManyRows,
  UnsupportedFileType,
  type UpdateContactListRequest,
  type UpdateContactRequest,
  validateContact
} from "@voiceagent/domain/Contacts"
import type { ContactId, ContactListId, TenantId } from "@voiceagent/domain/Ids"
import { mergePatch } from "@voiceagent/domain/Json"
import type { PageRequest } from "@voiceagent/domain/Pagination"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { ContactListsRepo } from "./ContactListsRepo.js"
import { ContactsRepo, type ListScope } from "./ContactsRepo.js"
import { parseContactsCsv } from "./CsvContacts.js"
import { type CandidateRow, planImport } from "./ImportPlan.js"

/** An uploaded file, as the multipart parser leaves it: its name and where its bytes are on disk. */
export interface UploadedFile {
  readonly name: string
  readonly path: string
}

const candidateOf = (input: ContactInput, row: number): CandidateRow => ({
  row,
  phone: input.phoneNumber,
  name: input.name,
  email: input.email,
  metadata: input.metadata
})

const invalidContact = (reason: string) =>
  new InvalidContact({ message: `The contact is invalid: ${reason}`, details: { reason } })

export class ContactLists extends Effect.Service<ContactLists>()("Contacts/ContactLists", {
  effect: Effect.gen(function*() {
    const lists = yield* ContactListsRepo
    const contacts = yield* ContactsRepo
    const fs = yield* FileSystem.FileSystem

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

    const create = Effect.fn("ContactLists.create")(function*(tenantId: TenantId, request: CreateContactListRequest) {
      return yield* lists.create(tenantId, request.name, request.metadata ?? {}).pipe(
        Effect.catchTag("ListNameTaken", () => new ContactListNameTaken())
      )
    })

    const list = Effect.fn("ContactLists.list")(function*(tenantId: TenantId, page: PageRequest) {
      return yield* lists.list(tenantId, page)
    })

    const get = Effect.fn("ContactLists.get")(function*(tenantId: TenantId, id: ContactListId) {
      return yield* listOf(tenantId, id)
    })

    /** Renames the list and merges its metadata (RFC 7396). */
    const update = Effect.fn("ContactLists.update")(
      function*(tenantId: TenantId, id: ContactListId, patch: UpdateContactListRequest) {
        const updated = yield* lists.update(tenantId, id, {
          ...(patch.name === undefined ? {} : { name: patch.name }),
          ...(patch.metadata === undefined ? {} : { metadata: patch.metadata })
        }).pipe(Effect.catchTag("ListNameTaken", () => new ContactListNameTaken()))
        if (Option.isNone(updated)) return yield* new ContactListNotFound()
        return updated.value
      }
    )

    /** Deletes the list and its contacts, unless a campaign uses it. */
    const remove = Effect.fn("ContactLists.remove")(function*(tenantId: TenantId, id: ContactListId) {
      const result = yield* lists.remove(tenantId, id)
      if (result === "in_use") return yield* new ContactListInUse()
      if (result !== "deleted") return yield* new ContactListNotFound()
    })

    /**
     * Imports a CSV file's rows into the list: a file the parser refuses imports nothing; otherwise
     * every valid row not already in the list is added, and the others are reported with their row.
     */
    const importCsv = Effect.fn("ContactLists.importCsv")(
      function*(tenantId: TenantId, id: ContactListId, file: UploadedFile) {
        const list = yield* listOf(tenantId, id)
        if (!file.name.toLowerCase().endsWith(".csv")) return yield* new UnsupportedFileType()
        const text = yield* fs.readFileString(file.path, "utf8").pipe(Effect.orDie)
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
      }
    )

    /** Imports contacts sent as JSON, checked and reported as a CSV file's rows are (rows from 1). */
    const importContacts = Effect.fn("ContactLists.importContacts")(
      function*(tenantId: TenantId, id: ContactListId, inputs: ReadonlyArray<ContactInput>) {
        const list = yield* listOf(tenantId, id)
        return yield* importRows(
          { tenantId, listId: list.id },
          defaultCountryOf(list.metadata),
          inputs.map((c, i) => candidateOf(c, i + 1))
        )
      }
    )

    /** A page of the list's contacts; without page and limit, the whole list. */
    const contactsOf = Effect.fn("ContactLists.contacts")(
      function*(
        tenantId: TenantId,
        id: ContactListId,
        query: { readonly page?: number | undefined; readonly limit?: number | undefined }
      ) {
        // the list's count is kept in the same transaction as every write of its contacts
        const { contactCount: total } = yield* listOf(tenantId, id)
        const scope = { tenantId, listId: id }
        if (query.page === undefined && query.limit === undefined) {
          const data = yield* contacts.page(scope, 0, undefined)
          return { data, total: data.length, page: 1, limit: data.length }
        }
        const page = query.page ?? 1
        const limit = query.limit ?? DEFAULT_CONTACTS_LIMIT
        const data = yield* contacts.page(scope, (page - 1) * limit, limit)
        return { data, total, page, limit }
      }
    )

    /** Adds one contact, checked against the list's default country; refused if its phone is in the list. */
    const addContact = Effect.fn("ContactLists.addContact")(
      function*(tenantId: TenantId, id: ContactListId, input: ContactInput) {
        const list = yield* listOf(tenantId, id)
        const checked = validateContact(
          { phone: input.phoneNumber, name: input.name, email: input.email, metadata: input.metadata },
          defaultCountryOf(list.metadata)
        )
        if (Either.isLeft(checked)) return yield* invalidContact(checked.left)
        const scope = { tenantId, listId: list.id }
        const inserted = yield* contacts.insertMany(scope, [checked.right])
        if (Option.isNone(inserted)) return yield* new ContactListNotFound()
        if (!inserted.value[0]) return yield* new ContactExists()
        return yield* contacts.findByPhone(scope, checked.right.phoneNumber).pipe(Effect.flatten, Effect.orDie)
      }
    )

    const getContact = Effect.fn("ContactLists.getContact")(
      function*(tenantId: TenantId, id: ContactListId, contactId: ContactId) {
        yield* listOf(tenantId, id)
        const found = yield* contacts.find({ tenantId, listId: id }, contactId)
        if (Option.isNone(found)) return yield* new ContactNotFound()
        return found.value
      }
    )

    /** Changes the fields given (metadata merged), the result checked as a new contact is. */
    const updateContact = Effect.fn("ContactLists.updateContact")(
      function*(tenantId: TenantId, id: ContactListId, contactId: ContactId, patch: UpdateContactRequest) {
        const list = yield* listOf(tenantId, id)
        const scope = { tenantId, listId: list.id }
        const current = yield* contacts.find(scope, contactId)
        if (Option.isNone(current)) return yield* new ContactNotFound()
        const checked = validateContact(
          {
            phone: patch.phoneNumber ?? current.value.phoneNumber,
            name: patch.name === undefined ? current.value.name : patch.name,
            email: patch.email === undefined ? current.value.email : patch.email,
            metadata: patch.metadata === undefined
              ? current.value.metadata
              : mergePatch(current.value.metadata, patch.metadata)
          },
          defaultCountryOf(list.metadata)
        )
        if (Either.isLeft(checked)) return yield* invalidContact(checked.left)
        const updated = yield* contacts.update(scope, contactId, checked.right).pipe(
          Effect.catchTag("PhoneAlreadyInList", () => new ContactExists())
        )
        if (Option.isNone(updated)) return yield* new ContactNotFound()
        return updated.value
      }
    )

    const removeContact = Effect.fn("ContactLists.removeContact")(
      function*(tenantId: TenantId, id: ContactListId, contactId: ContactId) {
        yield* listOf(tenantId, id)
        if (!(yield* contacts.remove({ tenantId, listId: id }, contactId))) return yield* new ContactNotFound()
      }
    )

    return {
      create,
      list,
      get,
      update,
      remove,
      importCsv,
      importContacts,
      contacts: contactsOf,
      addContact,
      getContact,
      updateContact,
      removeContact
    } as const
  }),
  dependencies: [ContactListsRepo.Default, ContactsRepo.Default, NodeFileSystem.layer]
}) {}
