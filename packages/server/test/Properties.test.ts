import * as SqlClient from "@effect/sql/SqlClient"
import { describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect, Runtime } from "effect"
import fc from "fast-check"
import { createKey, signup } from "./Http.js"

// Property-based checks over real HTTP: whatever a client sends, the answer is never a 5xx, and a
// refused request writes nothing.

const cell = fc.oneof(
  fc.constantFrom("+14155552671", "+1 (415) 555-2672", "415.555.2673", "+442079460958", "0044 20 7946 0959", "", " "),
  fc.constantFrom("ada@example.com", "not-an-email", "{\"vip\":true}", "[1,2]", "{broken", "null"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom("\"", "\"\"", ",", "\n", "\r\n", "a,b", "\"quoted, with comma\"", "é", "📞")
)

const header = fc.constantFrom(
  "phone",
  "Phone Number",
  "MOBILE",
  "customer_number",
  "name",
  "Customer Name",
  "email",
  "metadata",
  "notes",
  "",
  "\"odd,header\""
)

const csvBody = fc.tuple(
  fc.array(header, { minLength: 0, maxLength: 5 }),
  fc.array(fc.array(cell, { minLength: 0, maxLength: 6 }), { minLength: 0, maxLength: 12 }),
  fc.constantFrom("\n", "\r\n"),
  fc.boolean()
).map(([headers, rows, eol, bom]) =>
  (bom ? "\uFEFF" : "") + [headers.join(","), ...rows.map((r) => r.join(","))].join(eol) + eol
)

const send = async (url: string, init: RequestInit) => {
  const response = await fetch(url, init)
  const text = await response.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, body, text }
}

describe("properties over HTTP", () => {
  layer(TestPlatform.layer(), { timeout: 300_000, excludeTestServices: true })((it) => {
    it.effect("random CSV uploads never answer 5xx, and import exactly what they report", () =>
      Effect.gen(function*() {
        const { campaign, gateway } = yield* TestPlatform.TestPlatformUrls
        const account = yield* signup(gateway)
        const { key } = yield* createKey(gateway, account.token)
        const sql = yield* SqlClient.SqlClient
        const runtime = yield* Effect.runtime<never>()
        const countIn = (listId: string) =>
          Runtime.runPromise(runtime)(
            sql<{ n: number }>`SELECT count(*) AS n FROM contacts WHERE contact_list_id = ${listId}`.pipe(
              Effect.map(([r]) => r!.n),
              Effect.orDie
            )
          )
        const list = await_(send(`${campaign}/contact-lists`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "fuzz", metadata: { defaultCountry: "US" } })
        }))
        const listId = (yield* list).body.id as string

        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(csvBody, async (csv) => {
              const before = await countIn(listId)
              const form = new FormData()
              form.append("file", new Blob([csv], { type: "text/csv" }), "fuzz.csv")
              const reply = await send(`${campaign}/contact-lists/${listId}/upload`, {
                method: "POST",
                headers: { authorization: `Bearer ${key}` },
                body: form
              })
              const after = await countIn(listId)
              if (reply.status >= 500) throw new Error(`5xx for ${JSON.stringify(csv)}: ${reply.text}`)
              if (reply.status === 200) {
                if (after - before !== reply.body.imported) {
                  throw new Error(`reported ${reply.body.imported}, wrote ${after - before}`)
                }
                if (reply.body.skipped !== reply.body.invalidRows.length) throw new Error("skipped != invalidRows")
              } else if (after !== before) {
                throw new Error(`refused with ${reply.status} but wrote ${after - before} contacts`)
              }
            }),
            { numRuns: 60, seed: Number(process.env["FC_SEED"] ?? Date.now() % 2 ** 31) }
          )
        )
      }))

    it.effect("random JSON bodies never answer 5xx, and refused ones write nothing", () =>
      Effect.gen(function*() {
        const urls = yield* TestPlatform.TestPlatformUrls
        const account = yield* signup(urls.gateway)
        const { key } = yield* createKey(urls.gateway, account.token)
        const sql = yield* SqlClient.SqlClient
        const runtime = yield* Effect.runtime<never>()
        const totals = () =>
          Runtime.runPromise(runtime)(
            sql<{ n: string }>`
              SELECT (SELECT count(*) FROM contacts) || '/' || (SELECT count(*) FROM contact_lists) || '/' ||
                     (SELECT count(*) FROM agents) || '/' || (SELECT count(*) FROM voice_numbers) || '/' ||
                     (SELECT count(*) FROM api_keys) AS n
            `.pipe(Effect.map(([r]) => r!.n), Effect.orDie)
          )
        const list = yield* await_(send(`${urls.campaign}/contact-lists`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ name: "json-fuzz" })
        }))
        const listId = list.body.id as string
        const targets = [
          `${urls.campaign}/contact-lists/${listId}/contacts/bulk`,
          `${urls.campaign}/contact-lists/${listId}/contacts`,
          `${urls.campaign}/contact-lists`,
          `${urls.comms}/agents`,
          `${urls.comms}/voice-numbers`,
          `${urls["platform-core"]}/auth/signup`
        ]
        const body = fc.oneof(
          fc.jsonValue(),
          fc.record({ contacts: fc.array(fc.jsonValue(), { maxLength: 5 }) }),
          fc.record({
            phoneNumber: fc.oneof(fc.string(), fc.jsonValue()),
            name: fc.jsonValue(),
            metadata: fc.jsonValue()
          }),
          fc.record({ name: fc.jsonValue(), agent_persona_id: fc.oneof(fc.uuid(), fc.string()) }),
          fc.record({ phoneNumber: fc.string(), provider: fc.string() })
        )
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.constantFrom(...targets), body, async (url, json) => {
              const before = await totals()
              const reply = await send(url, {
                method: "POST",
                headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
                body: JSON.stringify(json)
              })
              if (reply.status >= 500) throw new Error(`5xx from ${url} for ${JSON.stringify(json)}: ${reply.text}`)
              if (reply.status >= 400 && (await totals()) !== before) {
                throw new Error(`${url} refused ${JSON.stringify(json)} with ${reply.status} but wrote data`)
              }
            }),
            { numRuns: 150, seed: Number(process.env["FC_SEED"] ?? Date.now() % 2 ** 31) }
          )
        )
      }))
  })
})

const await_ = <A>(promise: Promise<A>) => Effect.promise(() => promise)
