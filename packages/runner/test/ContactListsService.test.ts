/**
 * The contact-list use cases through the runner's `ContactLists` service (what the contact-list
 * routes call), on the testing kit: a CSV import reports its bad rows and imports the rest, a file
 * it refuses imports nothing, and the bulk and single-contact paths follow the same rules.
 */
import { assert, describe, it } from "@effect/vitest"
import { CreateContactListRequest, UpdateContactRequest } from "@voiceagent/domain/Contacts"
import type { ContactListId, TenantId } from "@voiceagent/domain/Ids"
import { ContactLists } from "@voiceagent/runner/Contacts/ContactLists"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A file as the multipart parser leaves one: written to a temporary directory, removed after the test. */
const upload = (name: string, text: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "contacts-"))
      fs.writeFileSync(path.join(dir, "part"), text)
      return { name, path: path.join(dir, "part"), dir }
    }),
    (file) => Effect.sync(() => fs.rmSync(file.dir, { recursive: true, force: true }))
  )

const failureTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e._tag)

const phonesOf = (tenantId: TenantId, listId: ContactListId) =>
  Effect.flatMap(ContactLists, (lists) => lists.contacts(tenantId, listId, {})).pipe(
    Effect.map((page) => page.data.map((c) => c.phoneNumber))
  )

describe("the ContactLists service", () => {
  it.layer(TestKit.layer(), { timeout: 120_000 })((it) => {
    it.scoped("a CSV import adds the good rows and reports the others by their spreadsheet row", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T12:00:00Z")
        const lists = yield* ContactLists
        const { tenantId } = yield* TestKit.tenant()
        const list = yield* lists.create(
          tenantId,
          new CreateContactListRequest({ name: "Leads", metadata: { defaultCountry: "US" } })
        )
        yield* lists.addContact(tenantId, list.id, { phoneNumber: "+12125550109" })
        const csv = [
          "phone_number,name,email",
          "+12125550101,Ann,ann@example.com",
          "2125550102,Bob,",
          "not-a-phone,Carl,",
          ",Dee,",
          "+12125550101,Ann again,",
          "+12125550103,Eve,not-an-email",
          "+12125550109,Already there,"
        ].join("\n")
        const result = yield* lists.importCsv(tenantId, list.id, yield* upload("leads.CSV", csv))
        assert.strictEqual(result.imported, 2)
        assert.strictEqual(result.skipped, 5)
        assert.deepStrictEqual(result.invalidRows.map((r) => [r.row, r.reason]), [
          [4, "invalid_phone"],
          [5, "missing_phone"],
          [6, "duplicate"],
          [7, "invalid_email"],
          [8, "duplicate"]
        ])
        assert.deepStrictEqual(
          [...(yield* phonesOf(tenantId, list.id))].sort(),
          ["+12125550101", "+12125550102", "+12125550109"]
        )
        assert.strictEqual((yield* lists.get(tenantId, list.id)).contactCount, 3)
      }))

    it.scoped("refuses whole files, and another tenant's list, importing nothing", () =>
      Effect.gen(function*() {
        const lists = yield* ContactLists
        const { tenantId } = yield* TestKit.tenant()
        const other = yield* TestKit.tenant()
        const list = yield* lists.create(tenantId, new CreateContactListRequest({ name: "Refusals" }))
        const good = "phone\n+12125550201\n"
        const refused = (name: string, text: string, tenant: TenantId = tenantId) =>
          Effect.flatMap(upload(name, text), (file) => failureTag(lists.importCsv(tenant, list.id, file)))

        assert.strictEqual(yield* refused("leads.txt", good), "UnsupportedFileType")
        assert.strictEqual(yield* refused("leads.csv", "name,email\nAnn,ann@example.com\n"), "MissingPhoneColumn")
        assert.strictEqual(yield* refused("leads.csv", "phone,name\n\"+1212555,Ann\n"), "InvalidCsv")
        const rows = ["phone", ...Array.from({ length: 501 }, (_, i) => `+1212556${String(i).padStart(4, "0")}`)]
        assert.strictEqual(yield* refused("leads.csv", rows.join("\n")), "TooManyRows")
        assert.strictEqual(yield* refused("leads.csv", good, other.tenantId), "ContactListNotFound")
        assert.deepStrictEqual(yield* phonesOf(tenantId, list.id), [])
      }))

    it.effect("bulk and single contacts are checked by the same rules", () =>
      Effect.gen(function*() {
        const lists = yield* ContactLists
        const { tenantId } = yield* TestKit.tenant()
        const list = yield* lists.create(tenantId, new CreateContactListRequest({ name: "Bulk" }))
        const result = yield* lists.importContacts(tenantId, list.id, [
          { phoneNumber: "+12125550301", name: "Ann" },
          { phoneNumber: "2125550302" },
          { phoneNumber: "+12125550301" }
        ])
        assert.deepStrictEqual(
          [result.imported, result.invalidRows.map((r) => [r.row, r.reason])],
          [1, [[2, "missing_country_code"], [3, "duplicate"]]]
        )
        assert.strictEqual(
          yield* failureTag(lists.addContact(tenantId, list.id, { phoneNumber: "+12125550301" })),
          "ContactExists"
        )
        assert.strictEqual(
          yield* failureTag(lists.addContact(tenantId, list.id, { phoneNumber: "2125550302" })),
          "InvalidContact"
        )
        const bob = yield* lists.addContact(tenantId, list.id, { phoneNumber: "+12125550303", name: "Bob" })
        assert.strictEqual(
          yield* failureTag(
            lists.updateContact(tenantId, list.id, bob.id, new UpdateContactRequest({ phoneNumber: "+12125550301" }))
          ),
          "ContactExists"
        )
        const renamed = yield* lists.updateContact(tenantId, list.id, bob.id, new UpdateContactRequest({ name: "Rob" }))
        assert.deepInclude(renamed, { name: "Rob", phoneNumber: "+12125550303" })
        yield* lists.removeContact(tenantId, list.id, bob.id)
        assert.strictEqual(yield* failureTag(lists.getContact(tenantId, list.id, bob.id)), "ContactNotFound")
        assert.deepStrictEqual(yield* phonesOf(tenantId, list.id), ["+12125550301"])
        yield* lists.remove(tenantId, list.id)
        assert.strictEqual(yield* failureTag(lists.get(tenantId, list.id)), "ContactListNotFound")
      }))
  })
})
