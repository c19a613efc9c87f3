import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { createKey, del, get, patch, post, request, signup } from "./Http.js"

const tenantKey = () =>
  Effect.gen(function*() {
    const { gateway } = yield* TestPlatform.TestPlatformUrls
    const account = yield* signup(gateway)
    const { key } = yield* createKey(gateway, account.token)
    return { ...account, key }
  })

let listCounter = 0
const newList = (key: string, metadata?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { campaign } = yield* TestPlatform.TestPlatformUrls
    const reply = yield* post(`${campaign}/contact-lists`, {
      token: key,
      json: { name: `List ${++listCounter}`, ...(metadata === undefined ? {} : { metadata }) }
    })
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.body as { id: string; name: string; contactCount: number }
  })

const upload = (url: string, key: string, csv: string | Uint8Array, filename = "contacts.csv") => {
  const form = new FormData()
  form.append("file", new Blob([csv], { type: "text/csv" }), filename)
  return request("POST", url, { token: key, body: form })
}

const contactCount = (listId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*) AS n FROM contacts WHERE contact_list_id = ${listId}`.pipe(
        Effect.map(([r]) => r!.n),
        Effect.orDie
      )
  )

describe("contact lists and contacts", () => {
  layer(TestPlatform.layer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("contact lists: create, unique names, list with counts, read, patch, delete", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key, tenantId } = yield* tenantKey()
        const created = yield* post(`${campaign}/contact-lists`, {
          token: key,
          json: { name: "Spring leads", metadata: { source: "fair", defaultCountry: "US" } }
        })
        assert.strictEqual(created.status, 201)
        assert.deepInclude(created.body, { tenantId, name: "Spring leads", contactCount: 0 })
        assert.deepStrictEqual(created.body.metadata, { source: "fair", defaultCountry: "US" })

        const duplicate = yield* post(`${campaign}/contact-lists`, { token: key, json: { name: "SPRING LEADS" } })
        assert.deepStrictEqual([duplicate.status, duplicate.body.error.code], [409, "CONTACT_LIST_NAME_TAKEN"])
        const badCountry = yield* post(`${campaign}/contact-lists`, {
          token: key,
          json: { name: "x", metadata: { defaultCountry: "USA" } }
        })
        assert.deepStrictEqual([badCountry.status, badCountry.body.error.code], [400, "VALIDATION_FAILED"])
        assert.strictEqual((yield* post(`${campaign}/contact-lists`, { token: key, json: { name: "" } })).status, 400)

        yield* post(`${campaign}/contact-lists/${created.body.id}/contacts`, {
          token: key,
          json: { phoneNumber: "415 555 2671" }
        })
        const listed = yield* get(`${campaign}/contact-lists`, { token: key })
        assert.strictEqual(listed.body.total, 1)
        assert.strictEqual(listed.body.items[0].contactCount, 1)

        const renamed = yield* patch(`${campaign}/contact-lists/${created.body.id}`, {
          token: key,
          json: { name: "Renamed", metadata: { source: null, owner: "ana" } }
        })
        assert.strictEqual(renamed.status, 200)
        assert.deepStrictEqual(renamed.body.metadata, { defaultCountry: "US", owner: "ana" })
        assert.strictEqual(
          (yield* get(`${campaign}/contact-lists/${created.body.id}`, { token: key })).body.name,
          "Renamed"
        )

        const other = yield* newList(key)
        const clash = yield* patch(`${campaign}/contact-lists/${other.id}`, { token: key, json: { name: "renamed" } })
        assert.deepStrictEqual([clash.status, clash.body.error.code], [409, "CONTACT_LIST_NAME_TAKEN"])

        assert.strictEqual((yield* del(`${campaign}/contact-lists/${created.body.id}`, { token: key })).status, 204)
        assert.strictEqual((yield* get(`${campaign}/contact-lists/${created.body.id}`, { token: key })).status, 404)
        assert.strictEqual(yield* contactCount(created.body.id), 0, "its contacts go with it")
      }))

    it.effect("another tenant's list and contacts are 404s", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const alice = yield* tenantKey()
        const bob = yield* tenantKey()
        const list = yield* newList(alice.key)
        const contact = (yield* post(`${campaign}/contact-lists/${list.id}/contacts`, {
          token: alice.key,
          json: { phoneNumber: "+14155552671", name: "Ada" }
        })).body
        const base = `${campaign}/contact-lists/${list.id}`
        for (
          const reply of [
            yield* get(base, { token: bob.key }),
            yield* patch(base, { token: bob.key, json: { name: "mine" } }),
            yield* del(base, { token: bob.key }),
            yield* get(`${base}/contacts`, { token: bob.key }),
            yield* post(`${base}/contacts`, { token: bob.key, json: { phoneNumber: "+14155552672" } }),
            yield* post(`${base}/contacts/bulk`, { token: bob.key, json: { contacts: [] } }),
            yield* upload(`${base}/upload`, bob.key, "phone\n+14155552673\n"),
            yield* get(`${base}/contacts/${contact.id}`, { token: bob.key }),
            yield* patch(`${base}/contacts/${contact.id}`, { token: bob.key, json: { name: "x" } }),
            yield* del(`${base}/contacts/${contact.id}`, { token: bob.key })
          ]
        ) {
          assert.deepStrictEqual([reply.status, reply.body.error.code], [404, "CONTACT_LIST_NOT_FOUND"])
        }
        assert.strictEqual(yield* contactCount(list.id), 1)
        // and a contact id looked up through another list of the same tenant is not found
        const second = yield* newList(alice.key)
        const wrongList = yield* get(`${campaign}/contact-lists/${second.id}/contacts/${contact.id}`, {
          token: alice.key
        })
        assert.deepStrictEqual([wrongList.status, wrongList.body.error.code], [404, "CONTACT_NOT_FOUND"])
      }))

    it.effect(
      "uploads a real CSV: alias headers, BOM, CRLF, quotes, blank lines, bad rows, duplicates, extra columns",
      () =>
        Effect.gen(function*() {
          const { campaign, gateway } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const list = yield* newList(key)
          yield* post(`${campaign}/contact-lists/${list.id}/contacts`, {
            token: key,
            json: { phoneNumber: "+14155550100" }
          })
          const csv = [
            "\uFEFFMobile,Customer Name,EMAIL,Metadata,Plan",
            "+1 (415) 555-2671,\"Lovelace, Ada\",ada@example.com,\"{\"\"vip\"\":true}\",gold",
            "+14155552672,\"Grace \"\"Amazing\"\" Hopper\",,,",
            "",
            "+1 415 555 2673,\"Multi",
            "line\",,,",
            "not a number,Bad Phone,,,",
            "4155552674,No Country,,,",
            "+14155552675,Bad Mail,not-an-email,,",
            "+14155552676,Bad Meta,,[1,2],",
            "+14155552671,Again,,,",
            "+14155550100,Already There,,,",
            ",,,,"
          ].join("\r\n") + "\r\n"
          const reply = yield* upload(`${gateway}/contact-lists/${list.id}/upload`, key, csv)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.strictEqual(reply.body.imported, 3)
          assert.strictEqual(reply.body.skipped, 6)
          assert.deepStrictEqual(reply.body.invalidRows, [
            { row: 6, phone: "not a number", reason: "invalid_phone" },
            { row: 7, phone: "4155552674", reason: "missing_country_code" },
            { row: 8, phone: "+14155552675", reason: "invalid_email" },
            { row: 9, phone: "+14155552676", reason: "invalid_metadata" },
            { row: 10, phone: "+14155552671", reason: "duplicate" },
            { row: 11, phone: "+14155550100", reason: "duplicate" }
          ])
          const contacts = (yield* get(`${campaign}/contact-lists/${list.id}/contacts`, { token: key })).body.data
          const byPhone = Object.fromEntries(contacts.map((c: any) => [c.phoneNumber, c]))
          assert.deepInclude(byPhone["+14155552671"], {
            name: "Lovelace, Ada",
            email: "ada@example.com",
            metadata: { Plan: "gold", vip: true }
          })
          assert.strictEqual(byPhone["+14155552672"].name, "Grace \"Amazing\" Hopper")
          assert.strictEqual(byPhone["+14155552673"].name, "Multi\r\nline")
          assert.strictEqual((yield* get(`${campaign}/contact-lists/${list.id}`, { token: key })).body.contactCount, 4)
        })
    )

    it.effect("reads numbers without a country code with the list's defaultCountry", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key } = yield* tenantKey()
        const list = yield* newList(key, { defaultCountry: "IN" })
        const reply = yield* upload(
          `${campaign}/contact-lists/${list.id}/upload`,
          key,
          "phone_number,name\n098765 43210,Asha\n+14155552671,Ada\n"
        )
        assert.deepStrictEqual([reply.body.imported, reply.body.invalidRows], [2, []])
        const data = (yield* get(`${campaign}/contact-lists/${list.id}/contacts`, { token: key })).body.data
        assert.deepStrictEqual(data.map((c: any) => c.phoneNumber), ["+919876543210", "+14155552671"])
      }))

    it.effect(
      "CSV cells hold the JSON routes' rules: NUL, lone surrogates, deep or non-finite metadata skip the row (were " +
        "500s)",
      () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const list = yield* newList(key)
          const deep = (n: number) => `"{""a"":${"[".repeat(n)}${"]".repeat(n)}}"`
          const csv = [
            "phone,name,notes,metadata",
            "+14155550101,A\u0000B,,",
            "+14155550102,Ada,x\u0000y,",
            `+14155550103,Ada,,${deep(16)}`,
            `+14155550104,Ada,,${deep(5_000)}`,
            `+14155550105,Ada,,${deep(200_000)}`,
            "+14155550106,Ada,,\"{\"\"a\"\":\"\"\\u0000\"\"}\"",
            "+14155550107,Ada,,\"{\"\"a\"\":\"\"\\ud800\"\"}\"",
            "+14155550108,Ada,,\"{\"\"a\"\":1e400}\"",
            `+14155550109,Grace,fine,${deep(15)}`
          ].join("\n")
          const reply = yield* upload(`${campaign}/contact-lists/${list.id}/upload`, key, csv)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.strictEqual(reply.body.imported, 1, reply.text)
          assert.deepStrictEqual(
            reply.body.invalidRows.map((r: { row: number; reason: string }) => [r.row, r.reason]),
            [
              [2, "invalid_name"],
              [3, "invalid_metadata"],
              [4, "invalid_metadata"],
              [5, "invalid_metadata"],
              [6, "invalid_metadata"],
              [
                7,
                "invalid_metadata"
              ],
              [8, "invalid_metadata"],
              [9, "invalid_metadata"]
            ]
          )
          assert.strictEqual(yield* contactCount(list.id), 1)
        })
    )

    it.effect(
      "refuses whole files: not .csv, over 500 rows, no phone column, broken CSV, no file; nothing imported",
      () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const { key } = yield* tenantKey()
          const list = yield* newList(key)
          const url = `${campaign}/contact-lists/${list.id}/upload`
          const rows = (n: number) =>
            Array.from({ length: n }, (_, i) => `+1415555${String(i).padStart(4, "0")}`).join("\n")

          const txt = yield* upload(url, key, "phone\n+14155552671\n", "contacts.txt")
          assert.deepStrictEqual([txt.status, txt.body.error.code], [400, "UNSUPPORTED_FILE_TYPE"])
          const tooMany = yield* upload(url, key, `phone\n${rows(501)}\n`)
          assert.deepStrictEqual([tooMany.status, tooMany.body.error.code], [400, "TOO_MANY_ROWS"])
          assert.deepStrictEqual(tooMany.body.error.details, { rows: 501, limit: 500 })
          const noPhone = yield* upload(url, key, "name,email\nAda,ada@example.com\n")
          assert.deepStrictEqual([noPhone.status, noPhone.body.error.code], [400, "MISSING_PHONE_COLUMN"])
          assert.include(noPhone.body.error.message, "phone_number, phone, mobile, customer_number")
          const broken = yield* upload(url, key, "phone,name\n+14155552671,\"unterminated\n")
          assert.deepStrictEqual([broken.status, broken.body.error.code], [400, "INVALID_CSV"])
          const empty = yield* upload(url, key, "")
          assert.deepStrictEqual([empty.status, empty.body.error.code], [400, "INVALID_CSV"])
          const wrongPart = new FormData()
          wrongPart.append("upload", new Blob(["phone\n+14155552671\n"]), "contacts.csv")
          const noFile = yield* request("POST", url, { token: key, body: wrongPart })
          assert.deepStrictEqual([noFile.status, noFile.body.error.code], [400, "VALIDATION_FAILED"])
          const json = yield* post(url, { token: key, json: { file: "phone\n+14155552671" } })
          assert.deepStrictEqual(
            [json.status, json.body.error.code],
            [415, "UNSUPPORTED_MEDIA_TYPE"],
            "an upload is multipart"
          )
          const hugeCsv = `phone,notes\n+14155552671,${"x".repeat(3 * 1024 * 1024)}\n`
          const huge = yield* upload(url, key, hugeCsv)
          assert.deepStrictEqual([huge.status, huge.body.error.code], [413, "PAYLOAD_TOO_LARGE"])
          const { gateway } = yield* TestPlatform.TestPlatformUrls
          const hugeViaGateway = yield* upload(`${gateway}/contact-lists/${list.id}/upload`, key, hugeCsv)
          assert.deepStrictEqual([hugeViaGateway.status, hugeViaGateway.body.error.code], [413, "PAYLOAD_TOO_LARGE"])
          assert.strictEqual(
            (yield* post(`${gateway}/contact-lists/${list.id}/contacts/bulk`, { token: key, json: { contacts: [] } }))
              .status,
            200
          )
          assert.strictEqual(yield* contactCount(list.id), 0)

          const exactly500 = yield* upload(url, key, `phone\n${rows(500)}\n`)
          assert.deepStrictEqual([exactly500.status, exactly500.body.imported], [200, 500])
          const second = yield* upload(
            url,
            key,
            `phone\n${rows(500).split("\n").map((p) => p.replace("+1415", "+1212")).join("\n")}\n`
          )
          assert.strictEqual(second.body.imported, 500, "a list holds more than 500 contacts across uploads")
          assert.strictEqual(
            (yield* get(`${campaign}/contact-lists/${list.id}`, { token: key })).body.contactCount,
            1000
          )
        })
    )

    it.effect("an import is one transaction: a failure mid-way leaves nothing", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key } = yield* tenantKey()
        const list = yield* newList(key)
        const sql = yield* SqlClient.SqlClient
        // the database refuses one row of the batch, after the others were written
        yield* sql.unsafe(`
          CREATE OR REPLACE FUNCTION refuse_exploding_contact() RETURNS trigger AS $$
          BEGIN
            IF NEW.name = 'explode' THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
            RETURN NEW;
          END $$ LANGUAGE plpgsql;
          CREATE TRIGGER refuse_exploding_contact BEFORE INSERT ON contacts
            FOR EACH ROW EXECUTE FUNCTION refuse_exploding_contact();
        `)
        const csv = "phone,name\n+14155552671,ok\n+14155552672,ok\n+14155552673,explode\n+14155552674,ok\n"
        const reply = yield* upload(`${campaign}/contact-lists/${list.id}/upload`, key, csv)
        yield* sql.unsafe("DROP TRIGGER refuse_exploding_contact ON contacts")
        assert.strictEqual(reply.status, 500)
        assert.strictEqual(reply.body.error.code, "INTERNAL_ERROR")
        assert.strictEqual(yield* contactCount(list.id), 0)
        assert.strictEqual((yield* get(`${campaign}/contact-lists/${list.id}`, { token: key })).body.contactCount, 0)
      }))

    it.effect("pages contacts with page and limit, or returns the whole list without them", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key } = yield* tenantKey()
        const list = yield* newList(key)
        const phones = Array.from({ length: 60 }, (_, i) => `+1415555${String(1000 + i)}`)
        const bulk = yield* post(`${campaign}/contact-lists/${list.id}/contacts/bulk`, {
          token: key,
          json: { contacts: phones.map((phoneNumber, i) => ({ phoneNumber, name: `C${i}` })) }
        })
        assert.strictEqual(bulk.body.imported, 60)
        const url = `${campaign}/contact-lists/${list.id}/contacts`

        const all = yield* get(url, { token: key })
        assert.deepStrictEqual([all.body.data.length, all.body.total, all.body.page, all.body.limit], [60, 60, 1, 60])
        assert.deepStrictEqual(all.body.data.map((c: any) => c.phoneNumber), phones, "oldest first")
        const first = yield* get(`${url}?page=1`, { token: key })
        assert.deepStrictEqual([first.body.data.length, first.body.total, first.body.page, first.body.limit], [
          25,
          60,
          1,
          25
        ])
        const third = yield* get(`${url}?page=3&limit=25`, { token: key })
        assert.deepStrictEqual(
          third.body.data.map((c: any) => c.name),
          Array.from({ length: 10 }, (_, i) => `C${50 + i}`)
        )
        const onlyLimit = yield* get(`${url}?limit=200`, { token: key })
        assert.deepStrictEqual([onlyLimit.body.data.length, onlyLimit.body.page], [60, 1])
        for (const query of ["limit=201", "limit=0", "page=0", "page=x", "limit=2.5"]) {
          const bad = yield* get(`${url}?${query}`, { token: key })
          assert.deepStrictEqual([bad.status, bad.body.error.code], [400, "VALIDATION_FAILED"], query)
        }
      }))

    it.effect("adds, reads, edits and removes single contacts with the same rules", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key } = yield* tenantKey()
        const list = yield* newList(key)
        const url = `${campaign}/contact-lists/${list.id}/contacts`
        const created = yield* post(url, {
          token: key,
          json: { phoneNumber: "+1 415-555-2671", name: " Ada ", email: "ada@example.com", metadata: { a: 1 } }
        })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepInclude(created.body, {
          phoneNumber: "+14155552671",
          name: "Ada",
          email: "ada@example.com",
          contactListId: list.id
        })

        const dup = yield* post(url, { token: key, json: { phoneNumber: "+14155552671" } })
        assert.deepStrictEqual([dup.status, dup.body.error.code], [409, "CONTACT_EXISTS"])
        for (
          const [body, reason] of [
            [{ phoneNumber: "12" }, "missing_country_code"],
            [{ phoneNumber: "+1 2" }, "invalid_phone"],
            [{ phoneNumber: "+14155552679", email: "x@" }, "invalid_email"],
            [{ phoneNumber: "+14155552679", metadata: [1] }, "invalid_metadata"]
          ] as const
        ) {
          const bad = yield* post(url, { token: key, json: body })
          assert.deepStrictEqual([bad.status, bad.body.error.code, bad.body.error.details.reason], [
            400,
            "INVALID_CONTACT",
            reason
          ])
        }
        assert.strictEqual((yield* post(url, { token: key, json: { name: "no phone" } })).status, 400)

        const other = (yield* post(url, { token: key, json: { phoneNumber: "+14155552672" } })).body
        const edited = yield* patch(`${url}/${created.body.id}`, {
          token: key,
          json: { name: "Ada L.", metadata: { b: 2, a: null } }
        })
        assert.deepInclude(edited.body, { name: "Ada L.", email: "ada@example.com", phoneNumber: "+14155552671" })
        assert.deepStrictEqual(edited.body.metadata, { b: 2 })
        const clash = yield* patch(`${url}/${created.body.id}`, {
          token: key,
          json: { phoneNumber: other.phoneNumber }
        })
        assert.deepStrictEqual([clash.status, clash.body.error.code], [409, "CONTACT_EXISTS"])
        const cleared = yield* patch(`${url}/${created.body.id}`, { token: key, json: { email: null } })
        assert.isNull(cleared.body.email)

        assert.strictEqual((yield* get(`${url}/${created.body.id}`, { token: key })).body.name, "Ada L.")
        assert.strictEqual((yield* del(`${url}/${created.body.id}`, { token: key })).status, 204)
        assert.strictEqual((yield* del(`${url}/${created.body.id}`, { token: key })).status, 404)
        assert.strictEqual((yield* get(`${campaign}/contact-lists/${list.id}`, { token: key })).body.contactCount, 1)
      }))

    it.effect("bulk adds at most 500 with the upload's rules, numbering rows from 1", () =>
      Effect.gen(function*() {
        const { campaign } = yield* TestPlatform.TestPlatformUrls
        const { key } = yield* tenantKey()
        const list = yield* newList(key)
        const url = `${campaign}/contact-lists/${list.id}/contacts/bulk`
        const reply = yield* post(url, {
          token: key,
          json: {
            contacts: [
              { phoneNumber: "+14155552671", name: "A" },
              { phoneNumber: "+1 (415) 555-2671" },
              { phoneNumber: "nope" },
              { phoneNumber: "+14155552672", email: "b@example.com", metadata: { x: 1 } }
            ]
          }
        })
        assert.deepStrictEqual(reply.body, {
          imported: 2,
          skipped: 2,
          invalidRows: [
            { row: 2, phone: "+1 (415) 555-2671", reason: "duplicate" },
            { row: 3, phone: "nope", reason: "invalid_phone" }
          ]
        })
        const tooMany = yield* post(url, {
          token: key,
          json: {
            contacts: Array.from({ length: 501 }, (_, i) => ({ phoneNumber: `+1212555${String(i).padStart(4, "0")}` }))
          }
        })
        assert.deepStrictEqual([tooMany.status, tooMany.body.error.code], [400, "VALIDATION_FAILED"])
        assert.strictEqual(yield* contactCount(list.id), 2)
      }))
  })
})
