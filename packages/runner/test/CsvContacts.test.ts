import { assert, describe, it } from "@effect/vitest"
import { parseContactsCsv } from "@voiceagent/runner/Contacts/CsvContacts"
import { planImport } from "@voiceagent/runner/Contacts/ImportPlan"
import { Either } from "effect"

const rows = (text: string) => Either.getOrThrow(parseContactsCsv(text))

describe("contacts CSV", () => {
  it("matches alias headers in any case, with spaces or underscores", () => {
    for (
      const header of [
        "phone_number",
        "Phone Number",
        "PHONE",
        "Mobile",
        "customer number",
        "Customer_Number",
        "  phone  "
      ]
    ) {
      const [row] = rows(`${header},Name\n+14155552671,Ada\n`)
      assert.strictEqual(row!.phone, "+14155552671", header)
    }
    const [row] = rows("Customer Name,EMAIL,Mobile\nGrace,grace@example.com,+14155552671\n")
    assert.deepStrictEqual([row!.name, row!.email], ["Grace", "grace@example.com"])
  })

  it("prefers phone_number over phone, mobile and customer_number, keeping the others in metadata", () => {
    const [row] = rows("mobile,phone_number\n+14155550000,+14155552671\n")
    assert.strictEqual(row!.phone, "+14155552671")
    assert.deepStrictEqual(row!.metadata, { mobile: "+14155550000" })
  })

  it("handles a BOM, CRLF, quoted commas, quotes and newlines", () => {
    const text = "\uFEFFphone,name,notes\r\n+14155552671,\"Lovelace, Ada\",\"said \"\"hi\"\"\r\nthen left\"\r\n"
    const [row] = rows(text)
    assert.strictEqual(row!.name, "Lovelace, Ada")
    assert.deepStrictEqual(row!.metadata, { notes: "said \"hi\"\r\nthen left" })
    assert.strictEqual(row!.row, 2)
  })

  it("numbers rows as a spreadsheet does: header row 1, blank lines counted, multi-line cells one row", () => {
    const text = "phone,name\n+14155552671,\"two\nlines\"\n\n+14155552672,b\n,\n+14155552673,c\n"
    assert.deepStrictEqual(rows(text).map((r) => r.row), [2, 4, 6])
  })

  it("parses the metadata column as a JSON object over unknown columns", () => {
    const [good, bad, array] = rows(
      "phone,metadata,plan\n+14155552671,\"{\"\"plan\"\":\"\"gold\"\",\"\"vip\"\":true}\",basic\n+14155552672,{not " +
        "json},x\n+14155552673,[1],y\n"
    )
    assert.deepStrictEqual(good!.metadata, { plan: "gold", vip: true })
    assert.strictEqual(bad!.metadata, "invalid")
    assert.strictEqual(array!.metadata, "invalid")
  })

  it("refuses a file without a phone column, an empty file, broken quoting and more than 500 rows", () => {
    assert.strictEqual((parseContactsCsv("name,email\nAda,a@b.co\n") as any).left._tag, "MissingPhoneColumn")
    assert.strictEqual((parseContactsCsv("") as any).left._tag, "InvalidCsv")
    assert.strictEqual((parseContactsCsv("phone\n\"+1415") as any).left._tag, "InvalidCsv")
    const body = Array.from({ length: 501 }, (_, i) => `+1415555${String(i).padStart(4, "0")}`).join("\n")
    assert.deepStrictEqual((parseContactsCsv(`phone\n${body}\n`) as any).left, { _tag: "TooManyRows", rows: 501 })
    assert.isTrue(Either.isRight(parseContactsCsv(`phone\n${body.split("\n").slice(0, 500).join("\n")}\n\n\n`)))
  })

  it("plans an import: normalised phones, each problem named, repeats marked duplicate", () => {
    const plan = planImport(
      [
        { row: 2, phone: "+1 (415) 555-2671", name: "Ada" },
        { row: 3, phone: "415.555.2671" },
        { row: 4, phone: "+14155552671" },
        { row: 5, phone: "" },
        { row: 6, phone: "+1 555" },
        { row: 7, phone: "+14155552672", email: "not-an-email" },
        { row: 8, phone: "+14155552673", metadata: "invalid" },
        { row: 9, phone: "0044 20 7946 0958" }
      ],
      null
    )
    assert.deepStrictEqual(plan.valid.map((v) => [v.row, v.contact.phoneNumber]), [[2, "+14155552671"], [
      9,
      "+442079460958"
    ]])
    assert.deepStrictEqual(plan.invalid.map((r) => [r.row, r.reason]), [
      [3, "missing_country_code"],
      [4, "duplicate"],
      [5, "missing_phone"],
      [6, "invalid_phone"],
      [7, "invalid_email"],
      [8, "invalid_metadata"]
    ])
    const withCountry = planImport([{ row: 2, phone: "415.555.2671" }, { row: 3, phone: "020 7946 0958" }], "US")
    assert.deepStrictEqual(withCountry.valid.map((v) => v.contact.phoneNumber), ["+14155552671"])
    assert.deepStrictEqual(withCountry.invalid.map((r) => r.reason), ["invalid_phone"])
  })
})
