import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { signWebhookBody } from "@voiceagent/runner/Messaging/WhatsAppCloud"
import { Effect } from "effect"
import * as crypto from "node:crypto"
import { createKey, del, get, post, type Reply, request, signup, waitUntil } from "./Http.js"

// Post-call messaging over real sockets on the real clock: chat-app and SMS campaigns, the chat-app
// webhook (verification and signed notifications), and the messages sent after calls by the embedded
// simulated senders. The simulated carrier rings for 200 ms; a number ending in 9001 is busy, any
// other answers and talks for its last three digits in seconds.

const APP_SECRET = "chat-app-app-secret-for-tests"
const PUBLIC_URL = "https://voice.example.com"

let unique = 0
const phone = (last4: string) => `+1646${200 + (++unique % 700)}${last4}`

const put = (url: string, options: Parameters<typeof request>[2]) => request("PUT", url, options)

/** A tenant with an API key, a wallet topped up by `topUp`, one agent named "Dialer" and a voice number. */
const account = (topUp = 0) =>
  Effect.gen(function*() {
    const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* signup(gateway)
    const { key } = yield* createKey(gateway, user.token)
    if (topUp > 0) {
      const top = yield* post(`${gateway}/wallet/top-ups`, {
        token: user.token,
        json: { amount: topUp, idempotencyKey: "seed" }
      })
      assert.strictEqual(top.status, 201, top.text)
    }
    const agentId = yield* newAgent(key, "Dialer")
    const number = yield* post(`${comms}/voice-numbers`, {
      token: key,
      json: { phoneNumber: phone("5000"), provider: "PROVIDER_A" }
    })
    assert.strictEqual(number.status, 201, number.text)
    return { ...user, tenantId: user.tenantId!, key, agentId, voiceNumberId: number.body.id as string }
  })

const newAgent = (key: string, name: string) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const persona = (yield* get(`${comms}/prompts/personas`, { token: key })).body.items[0]
    const agent = yield* post(`${comms}/agents`, { token: key, json: { name, agent_persona_id: persona.id } })
    assert.strictEqual(agent.status, 201, agent.text)
    return agent.body.id as string
  })

/** The standard error body with this status and stable code. */
const refused = (reply: Reply, status: number, code: string, what: string) => {
  assert.strictEqual(reply.status, status, `${what} → ${reply.status} ${reply.text}`)
  assert.strictEqual(reply.body?.error?.code, code, `${what} → ${reply.text}`)
  assert.isString(reply.body.error.message, what)
  assert.isString(reply.body.error.requestId, what)
}

const total = (url: string, key: string) =>
  Effect.map(get(url, { token: key }), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.body.total as number
  })

/** Polls `url` every 100 ms until `done` holds of the body (at most 30 s of real time). */
const waitFor = (url: string, key: string, done: (body: any) => boolean, what: string) =>
  Effect.map(
    waitUntil(get(url, { token: key }), (reply) => reply.status === 200 && done(reply.body), `${what} (${url})`),
    (reply) => reply.body
  )

const isoTimestamp = (s: unknown) => typeof s === "string" && !Number.isNaN(Date.parse(s)) && s.endsWith("Z")

const mapping = (process: string, callStatus: string, extra: Record<string, unknown> = {}) => ({
  templateName: "call_followup",
  process,
  callStatus,
  ...extra
})

/** The eight (process, callStatus) pairs a chat-app campaign can map. */
const allPairs = ["INCOMING", "OUTGOING"].flatMap((p) =>
  ["ANSWERED", "UNANSWERED", "FAILED", "BUSY"].map((s) => mapping(p, s))
)

// ---------------------------------------------------------------------------------------------
// WhatsApp Cloud API shaped notifications
// ---------------------------------------------------------------------------------------------

const notification = (value: Record<string, unknown>) => ({
  object: "whatsapp_business_account",
  entry: [{
    id: "102290129340398",
    changes: [{
      field: "messages",
      value: {
        messaging_product: "whatsapp",
        metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
        ...value
      }
    }]
  }]
})

const statusUpdate = (id: string, status: string, timestamp: string, recipient = "14155550101") => ({
  id,
  status,
  timestamp,
  recipient_id: recipient,
  conversation: { id: "CONVERSATION_ID", origin: { type: "utility" } },
  pricing: { billable: true, pricing_model: "CBP", category: "utility" }
})

const inboundText = (id: string, from: string, text: string, timestamp: string) => ({
  from,
  id,
  timestamp,
  type: "text",
  text: { body: text }
})

/** POSTs a raw body to a tenant's webhook, signed with `secret` unless `signature` says otherwise. */
const deliver = (
  base: string,
  tenantId: string,
  raw: string,
  signature: string | null = signWebhookBody(APP_SECRET, raw)
) =>
  request("POST", `${base}/chatapp/webhook/${tenantId}`, {
    body: raw,
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "x-hub-signature-256": signature }) }
  })

describe("post-call messaging over HTTP", () => {
  layer(TestPlatform.layer({ chatAppAppSecret: APP_SECRET, publicUrl: PUBLIC_URL }), {
    timeout: 60_000,
    excludeTestServices: true
  })(
    (it) => {
      it.effect(
        "chat-app create: the full resource with defaults; every rule a 400 with nothing written; 404 and 409",
        () =>
          Effect.gen(function*() {
            const { campaign } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account()
            const list = `${campaign}/chatapp/campaigns`

            const created = yield* post(list, {
              token: a.key,
              json: {
                agentId: a.agentId,
                templates: [
                  mapping("OUTGOING", "ANSWERED"),
                  mapping("INCOMING", "UNANSWERED", {
                    templateName: "missed_call",
                    languageCode: "hi_IN",
                    bodyParameters: ["{{name}}"]
                  })
                ]
              }
            })
            assert.strictEqual(created.status, 201, created.text)
            const c = created.body
            assert.deepStrictEqual(Object.keys(c).sort(), [
              "agentId",
              "createdAt",
              "id",
              "isActive",
              "name",
              "phoneNumberId",
              "templates",
              "tenantId",
              "updatedAt"
            ])
            assert.match(c.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
            assert.deepInclude(c, {
              tenantId: a.tenantId,
              agentId: a.agentId,
              name: "Dialer chat-app",
              phoneNumberId: null,
              isActive: true
            })
            assert.isTrue(isoTimestamp(c.createdAt) && c.createdAt === c.updatedAt, `${c.createdAt} / ${c.updatedAt}`)
            assert.strictEqual(c.templates.length, 2)
            assert.deepStrictEqual(c.templates.map(({ id: _, ...rest }: any) => rest), [
              {
                templateName: "call_followup",
                languageCode: "en_US",
                process: "OUTGOING",
                callStatus: "ANSWERED",
                bodyParameters: []
              },
              {
                templateName: "missed_call",
                languageCode: "hi_IN",
                process: "INCOMING",
                callStatus: "UNANSWERED",
                bodyParameters: ["{{name}}"]
              }
            ])
            const templateIds = c.templates.map((t: any) => t.id)
            assert.isTrue(
              templateIds.every((id: unknown) => typeof id === "string" && id.length > 0),
              "service-assigned ids"
            )
            assert.strictEqual(new Set(templateIds).size, 2, "distinct template ids")

            // the rules, each on a second agent that has no campaign yet: 400, and nothing written
            const other = yield* newAgent(a.key, "Second")
            const valid = { agentId: other, templates: [mapping("OUTGOING", "ANSWERED")] }
            const { templateName: _n, ...noName } = mapping("OUTGOING", "ANSWERED")
            const { process: _p, ...noProcess } = mapping("OUTGOING", "ANSWERED")
            const { callStatus: _s, ...noStatus } = mapping("OUTGOING", "ANSWERED")
            const bad: Array<[string, Record<string, unknown>]> = [
              ["no templates", { agentId: other }],
              ["0 mappings", { ...valid, templates: [] }],
              ["21 mappings", { ...valid, templates: Array.from({ length: 21 }, (_, i) => allPairs[i % 8]) }],
              ["a duplicate (process, callStatus) in one language", {
                ...valid,
                templates: [mapping("OUTGOING", "BUSY"), mapping("OUTGOING", "BUSY", { templateName: "other_one" })]
              }],
              ["missing templateName", { ...valid, templates: [noName] }],
              ["missing process", { ...valid, templates: [noProcess] }],
              ["missing callStatus", { ...valid, templates: [noStatus] }],
              ["process OUTBOUND", { ...valid, templates: [mapping("OUTBOUND", "ANSWERED")] }],
              ["callStatus CANCELED", { ...valid, templates: [mapping("OUTGOING", "CANCELED")] }],
              ["callStatus answered", { ...valid, templates: [mapping("OUTGOING", "answered")] }],
              ["languageCode english", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { languageCode: "english" })]
              }],
              ["languageCode en-us", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { languageCode: "en-us" })]
              }],
              ["languageCode xx_YY", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { languageCode: "xx_YY" })]
              }],
              ["unknown placeholder", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { bodyParameters: ["Hi {{nme}}"] })]
              }],
              ["templateName with spaces", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { templateName: "Call Followup" })]
              }],
              ["11 body parameters", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { bodyParameters: Array.from({ length: 11 }, () => "a") })]
              }],
              ["an empty body parameter", {
                ...valid,
                templates: [mapping("OUTGOING", "ANSWERED", { bodyParameters: [""] })]
              }],
              ["templates null", { ...valid, templates: null }],
              ["an empty phoneNumberId", { ...valid, phoneNumberId: "" }],
              ["empty name", { ...valid, name: "" }],
              ["name of 121 characters", { ...valid, name: "x".repeat(121) }],
              ["isActive not a boolean", { ...valid, isActive: "yes" }],
              ["agentId not a UUID", { ...valid, agentId: "agent-1" }]
            ]
            for (const [what, body] of bad) {
              refused(yield* post(list, { token: a.key, json: body }), 400, "VALIDATION_FAILED", what)
              assert.strictEqual(yield* total(list, a.key), 1, `nothing written after ${what}`)
            }
            const detailed = yield* post(list, {
              token: a.key,
              json: { ...valid, templates: [mapping("OUTGOING", "ANSWERED", { languageCode: "xx_YY" })] }
            })
            assert.include(JSON.stringify(detailed.body.error.details), "languageCode", "the offending field is named")

            const stranger = yield* account()
            for (
              const [what, agentId] of [["another tenant's agent", stranger.agentId], [
                "an unknown agent",
                crypto.randomUUID()
              ]]
            ) {
              refused(yield* post(list, { token: a.key, json: { ...valid, agentId } }), 404, "AGENT_NOT_FOUND", what)
            }
            refused(
              yield* post(list, { token: a.key, json: { ...valid, agentId: a.agentId } }),
              409,
              "CHATAPP_CAMPAIGN_EXISTS",
              "second for an agent"
            )
            assert.strictEqual(yield* total(list, a.key), 1, "nothing written after the 404s and the 409")
            assert.strictEqual(yield* total(list, stranger.key), 0)

            // a different agent works; hi_IN and es_ES are accepted, and all eight pairs at once
            const second = yield* post(list, {
              token: a.key,
              json: {
                agentId: other,
                name: `  ${"F".repeat(120)}  `,
                phoneNumberId: "106540352242922",
                isActive: false,
                templates: allPairs.map((m, i) => ({ ...m, languageCode: i % 2 === 0 ? "es_ES" : "hi_IN" }))
              }
            })
            assert.strictEqual(second.status, 201, second.text)
            assert.deepInclude(second.body, {
              agentId: other,
              name: "F".repeat(120),
              phoneNumberId: "106540352242922",
              isActive: false
            })
            assert.deepStrictEqual(second.body.templates.map((t: any) => t.languageCode), [
              "es_ES",
              "hi_IN",
              "es_ES",
              "hi_IN",
              "es_ES",
              "hi_IN",
              "es_ES",
              "hi_IN"
            ])
            assert.strictEqual(yield* total(list, a.key), 2)
          })
      )

      it.effect("chat-app list, get, PUT and DELETE; another tenant sees 404s", () =>
        Effect.gen(function*() {
          const { campaign, gateway } = yield* TestPlatform.TestPlatformUrls
          const a = yield* account()
          const list = `${campaign}/chatapp/campaigns`
          const ids: Array<string> = []
          for (
            const [i, agentId] of [a.agentId, yield* newAgent(a.key, "Two"), yield* newAgent(a.key, "Three")].entries()
          ) {
            const reply = yield* post(list, {
              token: a.key,
              json: { agentId, name: `Campaign ${i}`, templates: [mapping("OUTGOING", "ANSWERED")] }
            })
            assert.strictEqual(reply.status, 201, reply.text)
            ids.push(reply.body.id)
          }
          const page = yield* get(list, { token: a.key })
          assert.deepInclude(page.body, { total: 3, page: 1, pageSize: 15, totalPages: 1 })
          assert.deepStrictEqual(
            page.body.items.map((c: any) => c.name),
            ["Campaign 2", "Campaign 1", "Campaign 0"],
            "newest first"
          )
          const small = yield* get(`${list}?pageSize=2&page=2`, { token: a.key })
          assert.deepInclude(small.body, { total: 3, page: 2, pageSize: 2, totalPages: 2 })
          assert.deepStrictEqual(small.body.items.map((c: any) => c.id), [ids[0]])
          refused(yield* get(`${list}?pageSize=101`, { token: a.key }), 400, "VALIDATION_FAILED", "pageSize=101")
          refused(yield* get(`${list}?page=0`, { token: a.key }), 400, "VALIDATION_FAILED", "page=0")
          const viaGateway = yield* get(`${gateway}/chatapp/campaigns?pageSize=100`, { token: a.key })
          assert.deepStrictEqual(
            [viaGateway.status, viaGateway.body.total, viaGateway.body.pageSize],
            [200, 3, 100],
            "the gateway routes /chatapp"
          )

          const url = `${list}/${ids[0]}`
          const original = (yield* get(url, { token: a.key })).body
          assert.deepStrictEqual(original, page.body.items[2])
          const stranger = yield* account()
          refused(yield* get(url, { token: stranger.key }), 404, "CHATAPP_CAMPAIGN_NOT_FOUND", "another tenant's get")
          refused(
            yield* put(url, { token: stranger.key, json: { name: "Hijacked" } }),
            404,
            "CHATAPP_CAMPAIGN_NOT_FOUND",
            "another tenant's put"
          )
          refused(
            yield* del(url, { token: stranger.key }),
            404,
            "CHATAPP_CAMPAIGN_NOT_FOUND",
            "another tenant's delete"
          )
          refused(
            yield* get(`${list}/${crypto.randomUUID()}`, { token: a.key }),
            404,
            "CHATAPP_CAMPAIGN_NOT_FOUND",
            "unknown id"
          )
          refused(yield* get(`${list}/not-a-uuid`, { token: a.key }), 400, "VALIDATION_FAILED", "id not a UUID")
          assert.deepStrictEqual((yield* get(url, { token: a.key })).body, original, "untouched by the stranger")

          // partial updates keep the rest, templates included (same ids)
          const renamed = yield* put(url, { token: a.key, json: { name: "Renamed", phoneNumberId: "pn-1" } })
          assert.strictEqual(renamed.status, 200, renamed.text)
          assert.deepStrictEqual({ ...renamed.body, updatedAt: original.updatedAt }, {
            ...original,
            name: "Renamed",
            phoneNumberId: "pn-1"
          })
          assert.isAtLeast(Date.parse(renamed.body.updatedAt), Date.parse(original.updatedAt))
          const paused = yield* put(url, { token: a.key, json: { isActive: false, phoneNumberId: null } })
          assert.deepInclude(paused.body, { name: "Renamed", phoneNumberId: null, isActive: false })
          assert.deepStrictEqual(paused.body.templates, original.templates)

          // templates replace the whole set, with new ids
          const replaced = yield* put(url, {
            token: a.key,
            json: {
              templates: [
                mapping("INCOMING", "FAILED", { templateName: "sorry" }),
                mapping("OUTGOING", "BUSY", { languageCode: "es_ES" })
              ]
            }
          })
          assert.strictEqual(replaced.status, 200, replaced.text)
          assert.deepStrictEqual(replaced.body.templates.map(({ id: _, ...rest }: any) => rest), [
            {
              templateName: "sorry",
              languageCode: "en_US",
              process: "INCOMING",
              callStatus: "FAILED",
              bodyParameters: []
            },
            {
              templateName: "call_followup",
              languageCode: "es_ES",
              process: "OUTGOING",
              callStatus: "BUSY",
              bodyParameters: []
            }
          ])
          const oldIds = new Set(original.templates.map((t: any) => t.id))
          assert.isTrue(
            replaced.body.templates.every((t: any) => typeof t.id === "string" && !oldIds.has(t.id)),
            "new template ids"
          )
          assert.deepInclude(replaced.body, { name: "Renamed", isActive: false })

          const before = (yield* get(url, { token: a.key })).body
          const badPuts: Array<[string, Record<string, unknown>]> = [
            ["0 mappings", { templates: [] }],
            ["21 mappings", { templates: Array.from({ length: 21 }, (_, i) => allPairs[i % 8]) }],
            ["a duplicate pair in one language", {
              templates: [mapping("INCOMING", "BUSY"), mapping("INCOMING", "BUSY")]
            }],
            ["missing process", { templates: [{ templateName: "x", callStatus: "BUSY" }] }],
            ["bad languageCode", { templates: [mapping("INCOMING", "BUSY", { languageCode: "en-us" })] }],
            ["unknown placeholder", {
              templates: [mapping("INCOMING", "BUSY", { bodyParameters: ["{{first name}}"] })]
            }],
            ["empty name", { name: "" }],
            ["a good name with bad templates", {
              name: "Changed",
              templates: [mapping("INCOMING", "BUSY", { callStatus: "LATE" })]
            }]
          ]
          for (const [what, body] of badPuts) {
            refused(yield* put(url, { token: a.key, json: body }), 400, "VALIDATION_FAILED", `PUT ${what}`)
            assert.deepStrictEqual(
              (yield* get(url, { token: a.key })).body,
              before,
              `nothing changed after PUT ${what}`
            )
          }

          const gone = yield* del(url, { token: a.key })
          assert.deepStrictEqual([gone.status, gone.text], [204, ""])
          refused(yield* get(url, { token: a.key }), 404, "CHATAPP_CAMPAIGN_NOT_FOUND", "get after delete")
          refused(yield* del(url, { token: a.key }), 404, "CHATAPP_CAMPAIGN_NOT_FOUND", "delete twice")
          refused(
            yield* put(url, { token: a.key, json: { name: "Back" } }),
            404,
            "CHATAPP_CAMPAIGN_NOT_FOUND",
            "put after delete"
          )
          assert.strictEqual(yield* total(list, a.key), 2)
          const again = yield* post(list, {
            token: a.key,
            json: { agentId: a.agentId, templates: [mapping("OUTGOING", "ANSWERED")] }
          })
          assert.strictEqual(again.status, 201, `the agent may have a campaign again after delete: ${again.text}`)
        }))

      it.effect("attach-number, webhook token and webhook details", () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const a = yield* account()
          const attach = (agentId: string, json: unknown, key = a.key) =>
            post(`${campaign}/chatapp/agents/${agentId}/attach-number`, { token: key, json })

          const first = yield* attach(a.agentId, { phoneNumberId: "106540352242922" })
          assert.strictEqual(first.status, 200, first.text)
          assert.deepStrictEqual(Object.keys(first.body).sort(), [
            "agentId",
            "id",
            "phoneNumberId",
            "tenantId",
            "updatedAt"
          ])
          assert.deepInclude(first.body, { tenantId: a.tenantId, agentId: a.agentId, phoneNumberId: "106540352242922" })
          assert.isTrue(isoTimestamp(first.body.updatedAt))
          const second = yield* attach(a.agentId, { phoneNumberId: "209876543210" })
          assert.strictEqual(second.status, 200, second.text)
          assert.deepInclude(second.body, { id: first.body.id, agentId: a.agentId, phoneNumberId: "209876543210" })
          assert.isAtLeast(Date.parse(second.body.updatedAt), Date.parse(first.body.updatedAt))

          for (
            const [what, body] of [["no body fields", {}], ["empty", { phoneNumberId: "" }], ["blank", {
              phoneNumberId: "   "
            }], [
              "a number",
              { phoneNumberId: 42 }
            ], ["65 characters", { phoneNumberId: "1".repeat(65) }]] as const
          ) {
            refused(yield* attach(a.agentId, body), 400, "VALIDATION_FAILED", `attach ${what}`)
          }
          const stranger = yield* account()
          refused(
            yield* attach(crypto.randomUUID(), { phoneNumberId: "1" }),
            404,
            "AGENT_NOT_FOUND",
            "attach to an unknown agent"
          )
          refused(
            yield* attach(stranger.agentId, { phoneNumberId: "1" }),
            404,
            "AGENT_NOT_FOUND",
            "attach to another tenant's agent"
          )
          refused(
            yield* attach("not-a-uuid", { phoneNumberId: "1" }),
            400,
            "VALIDATION_FAILED",
            "attach to a non-UUID agent"
          )
          const third = yield* attach(a.agentId, { phoneNumberId: "333" })
          assert.deepInclude(
            third.body,
            { id: first.body.id, phoneNumberId: "333" },
            "the refusals changed nothing, and it is one row per agent"
          )

          // the verify token: none before it is issued, then the same one every time
          refused(
            yield* get(`${campaign}/chatapp/webhook-details`, { token: a.key }),
            404,
            "WEBHOOK_TOKEN_NOT_ISSUED",
            "details before a token"
          )
          const token = yield* post(`${campaign}/chatapp/webhook-token`, { token: a.key })
          assert.strictEqual(token.status, 200, token.text)
          assert.deepStrictEqual(Object.keys(token.body), ["token"])
          assert.isAtLeast(token.body.token.length, 16)
          const repeat = yield* post(`${campaign}/chatapp/webhook-token`, { token: a.key })
          assert.deepStrictEqual(repeat.body, token.body, "idempotent")
          const details = yield* get(`${campaign}/chatapp/webhook-details`, { token: a.key })
          assert.deepStrictEqual([details.status, details.body], [200, {
            webhookUrl: `${PUBLIC_URL}/api/v1/chatapp/webhook/${a.tenantId}`,
            verifyToken: token.body.token
          }])
          const strangerToken = yield* post(`${campaign}/chatapp/webhook-token`, { token: stranger.key })
          assert.notStrictEqual(strangerToken.body.token, token.body.token, "a token per tenant")
          const noKey = yield* post(`${campaign}/chatapp/webhook-token`)
          assert.strictEqual(noKey.status, 401, noKey.text)
        }))

      it.effect(
        "webhook: subscription verification and signed notifications, replay-safe; bad signatures store nothing",
        () =>
          Effect.gen(function*() {
            const { campaign, gateway } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account()
            const b = yield* account()
            const token = (yield* post(`${campaign}/chatapp/webhook-token`, { token: a.key })).body.token as string
            const tokenB = (yield* post(`${campaign}/chatapp/webhook-token`, { token: b.key })).body.token as string
            const noToken = yield* account()

            const verify = (base: string, tenantId: string, params: Record<string, string>) =>
              request("GET", `${base}/chatapp/webhook/${tenantId}?${new URLSearchParams(params).toString()}`)
            const ok = yield* verify(campaign, a.tenantId, {
              "hub.mode": "subscribe",
              "hub.verify_token": token,
              "hub.challenge": "1158201444"
            })
            assert.strictEqual(ok.status, 200, ok.text)
            assert.strictEqual(ok.text, "1158201444")
            assert.match(ok.headers.get("content-type") ?? "", /^text\/plain/)
            const viaGateway = yield* verify(gateway, a.tenantId, {
              "hub.mode": "subscribe",
              "hub.verify_token": token,
              "hub.challenge": "abc-123"
            })
            assert.deepStrictEqual(
              [viaGateway.status, viaGateway.text],
              [200, "abc-123"],
              "the published webhookUrl goes through the gateway"
            )
            const forbidden: Array<[string, string, Record<string, string>]> = [
              ["a wrong token", a.tenantId, {
                "hub.mode": "subscribe",
                "hub.verify_token": `${token}x`,
                "hub.challenge": "1"
              }],
              ["a wrong mode", a.tenantId, {
                "hub.mode": "unsubscribe",
                "hub.verify_token": token,
                "hub.challenge": "1"
              }],
              ["no mode", a.tenantId, { "hub.verify_token": token, "hub.challenge": "1" }],
              ["another tenant's token", a.tenantId, {
                "hub.mode": "subscribe",
                "hub.verify_token": tokenB,
                "hub.challenge": "1"
              }],
              ["no token", a.tenantId, { "hub.mode": "subscribe", "hub.challenge": "1" }],
              ["a tenant without a token", noToken.tenantId, {
                "hub.mode": "subscribe",
                "hub.verify_token": token,
                "hub.challenge": "1"
              }]
            ]
            for (const [what, tenantId, params] of forbidden) {
              refused(
                yield* verify(campaign, tenantId, params),
                403,
                "WEBHOOK_VERIFICATION_FAILED",
                `verification with ${what}`
              )
            }

            const replies = `${campaign}/chatapp/replies`
            const raw = JSON.stringify(notification({
              contacts: [{ profile: { name: "Ada Lovelace" }, wa_id: "14155550101" }],
              messages: [
                inboundText(
                  "wamid.HBgLMTQxNTU1NTAxMDEVAgASGBQzQTRBREE",
                  "14155550101",
                  "Thanks, call me tomorrow",
                  "1700000001"
                )
              ],
              statuses: [
                statusUpdate("wamid.OUT-unknown-1", "delivered", "1700000000"),
                statusUpdate("wamid.OUT-unknown-1", "read", "1700000002"),
                statusUpdate("wamid.OUT-unknown-1", "played", "1700000003")
              ]
            }))

            // refused before anything is read: nothing stored
            const wrongSecret = yield* deliver(campaign, a.tenantId, raw, signWebhookBody("some-other-secret", raw))
            refused(wrongSecret, 401, "WEBHOOK_SIGNATURE_INVALID", "signed with another secret")
            refused(yield* deliver(campaign, a.tenantId, raw, null), 401, "WEBHOOK_SIGNATURE_INVALID", "unsigned")
            refused(
              yield* deliver(campaign, a.tenantId, raw, "sha256=deadbeef"),
              401,
              "WEBHOOK_SIGNATURE_INVALID",
              "malformed signature"
            )
            refused(
              yield* deliver(campaign, a.tenantId, raw.replace("Thanks", "Thank"), signWebhookBody(APP_SECRET, raw)),
              401,
              "WEBHOOK_SIGNATURE_INVALID",
              "a tampered body"
            )
            refused(
              yield* deliver(campaign, a.tenantId, raw, signWebhookBody(APP_SECRET, raw).replace("sha256=", "sha1=")),
              401,
              "WEBHOOK_SIGNATURE_INVALID",
              "another algorithm"
            )
            assert.strictEqual(yield* total(replies, a.key), 0, "nothing stored after the 401s")

            const notJson = "this is not json"
            refused(
              yield* deliver(campaign, a.tenantId, notJson),
              400,
              "WEBHOOK_PAYLOAD_INVALID",
              "signed but not JSON"
            )
            refused(
              yield* deliver(campaign, a.tenantId, JSON.stringify({ hello: "world" })),
              400,
              "WEBHOOK_PAYLOAD_INVALID",
              "signed JSON, not a notification"
            )
            refused(
              yield* deliver(campaign, noToken.tenantId, raw),
              403,
              "WEBHOOK_VERIFICATION_FAILED",
              "a tenant without a token"
            )
            assert.strictEqual(yield* total(replies, a.key), 0, "nothing stored after the 400s")

            const received = yield* deliver(campaign, a.tenantId, raw)
            assert.deepStrictEqual([received.status, received.body], [200, { statuses: 2, replies: 1 }], received.text)
            const stored = yield* get(replies, { token: a.key })
            assert.deepInclude(stored.body, { total: 1, page: 1, pageSize: 20, totalPages: 1 })
            const { id, ...reply } = stored.body.items[0]
            assert.isString(id)
            assert.deepStrictEqual(reply, {
              providerMessageId: "wamid.HBgLMTQxNTU1NTAxMDEVAgASGBQzQTRBREE",
              from: "14155550101",
              phoneNumberId: "106540352242922",
              type: "text",
              text: "Thanks, call me tomorrow",
              contactName: "Ada Lovelace",
              receivedAt: "2023-11-14T22:13:21.000Z"
            })
            assert.strictEqual(yield* total(replies, b.key), 0, "another tenant's replies are its own")

            // a replayed delivery records nothing new; a status-only notification through the gateway
            const replay = yield* deliver(campaign, a.tenantId, raw)
            assert.deepStrictEqual([replay.status, replay.body], [200, { statuses: 0, replies: 0 }], replay.text)
            assert.strictEqual(yield* total(replies, a.key), 1, "no duplicate reply")
            const statusOnly = JSON.stringify(
              notification({ statuses: [statusUpdate("wamid.OUT-unknown-2", "sent", "1700000010")] })
            )
            const viaGatewayPost = yield* deliver(gateway, a.tenantId, statusOnly)
            assert.deepStrictEqual(
              [viaGatewayPost.status, viaGatewayPost.body],
              [200, { statuses: 1, replies: 0 }],
              viaGatewayPost.text
            )
            const other = yield* deliver(
              campaign,
              a.tenantId,
              JSON.stringify({
                object: "whatsapp_business_account",
                entry: [{ id: "1", changes: [{ field: "message_template_status_update", value: {} }] }]
              })
            )
            assert.deepStrictEqual(
              [other.status, other.body],
              [200, { statuses: 0, replies: 0 }],
              "other fields are ignored"
            )
          })
      )

      it.effect(
        "SMS create: defaults and nulls, every rule a 400 with nothing written, 404 and 409; list, get, PUT, DELETE",
        () =>
          Effect.gen(function*() {
            const { campaign, gateway } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account()
            const list = `${campaign}/sms-agent/campaigns`
            const created = yield* post(list, {
              token: a.key,
              json: {
                agentId: a.agentId,
                templates: [{ callStatus: "ANSWERED", messageBody: "Thanks {{name}}, talk soon" }]
              }
            })
            assert.strictEqual(created.status, 201, created.text)
            const c = created.body
            assert.deepStrictEqual(Object.keys(c).sort(), [
              "agentId",
              "createdAt",
              "id",
              "isActive",
              "name",
              "senderNumber",
              "senderProvider",
              "templates",
              "tenantId",
              "updatedAt"
            ])
            assert.deepInclude(c, {
              tenantId: a.tenantId,
              agentId: a.agentId,
              name: "Dialer SMS",
              senderNumber: null,
              senderProvider: null,
              isActive: true
            })
            assert.isTrue(isoTimestamp(c.createdAt) && c.createdAt === c.updatedAt)
            assert.strictEqual(c.templates.length, 1)
            assert.isString(c.templates[0].id)
            assert.deepStrictEqual(c.templates.map(({ id: _, ...rest }: any) => rest), [
              {
                callStatus: "ANSWERED",
                messageBody: "Thanks {{name}}, talk soon",
                dltSenderId: null,
                dltTemplateId: null
              }
            ])

            const other = yield* newAgent(a.key, "Other")
            const template = { callStatus: "ANSWERED", messageBody: "Hello {{ name }}" }
            const valid = { agentId: other, templates: [template] }
            const bad: Array<[string, Record<string, unknown>]> = [
              ["name with punctuation", { ...valid, name: "Promo!" }],
              ["name of 121 characters", { ...valid, name: "a".repeat(121) }],
              ["empty name", { ...valid, name: "" }],
              ["blank name", { ...valid, name: "   " }],
              ["senderNumber +1234", { ...valid, senderNumber: "+1234" }],
              ["senderNumber TOO-LONG-SENDER", { ...valid, senderNumber: "TOO-LONG-SENDER" }],
              ["senderNumber of 12 letters", { ...valid, senderNumber: "ABCDEFGHIJKL" }],
              ["senderNumber without +", { ...valid, senderNumber: "14155552671" }],
              ["senderProvider PROVIDER_D", { ...valid, senderProvider: "PROVIDER_D" }],
              ["senderProvider twilio", { ...valid, senderProvider: "twilio" }],
              ["messageBody of 1601 characters", {
                ...valid,
                templates: [{ ...template, messageBody: "x".repeat(1601) }]
              }],
              ["empty messageBody", { ...valid, templates: [{ ...template, messageBody: "" }] }],
              ["missing messageBody", { ...valid, templates: [{ callStatus: "ANSWERED" }] }],
              ["missing callStatus", { ...valid, templates: [{ messageBody: "Hi" }] }],
              ["callStatus FAILED", { ...valid, templates: [{ ...template, callStatus: "FAILED" }] }],
              ["callStatus BUSY", { ...valid, templates: [{ ...template, callStatus: "BUSY" }] }],
              ["two templates for ANSWERED", {
                ...valid,
                templates: [template, { ...template, messageBody: "Again" }]
              }],
              ["no templates", { agentId: other }],
              ["templates []", { ...valid, templates: [] }],
              ["unknown placeholder {{nme}}", { ...valid, templates: [{ ...template, messageBody: "Hi {{nme}}" }] }],
              ["a bad dltTemplateId", { ...valid, templates: [{ ...template, dltTemplateId: "has space" }] }],
              ["agentId not a UUID", { ...valid, agentId: "x" }]
            ]
            for (const [what, body] of bad) {
              refused(yield* post(list, { token: a.key, json: body }), 400, "VALIDATION_FAILED", what)
              assert.strictEqual(yield* total(list, a.key), 1, `nothing written after ${what}`)
            }
            const stranger = yield* account()
            refused(
              yield* post(list, { token: a.key, json: { ...valid, agentId: stranger.agentId } }),
              404,
              "AGENT_NOT_FOUND",
              "another tenant's agent"
            )
            refused(
              yield* post(list, { token: a.key, json: { ...valid, agentId: crypto.randomUUID() } }),
              404,
              "AGENT_NOT_FOUND",
              "an unknown agent"
            )
            refused(
              yield* post(list, { token: a.key, json: { ...valid, agentId: a.agentId } }),
              409,
              "SMS_CAMPAIGN_EXISTS",
              "second for an agent"
            )
            assert.strictEqual(yield* total(list, a.key), 1, "nothing written after the 404s and the 409")

            // accepted values, each on an agent of its own
            const accepted: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
              ["name Spring Promo 2", { name: "Spring Promo 2" }, { name: "Spring Promo 2" }],
              ["a name of 120 characters", { name: "b".repeat(120) }, { name: "b".repeat(120) }],
              ["an E.164 sender", { senderNumber: "+14155552671", senderProvider: "PROVIDER_B" }, {
                senderNumber: "+14155552671",
                senderProvider: "PROVIDER_B"
              }],
              ["an alphanumeric sender", { senderNumber: "ACME", senderProvider: "PROVIDER_C" }, {
                senderNumber: "ACME",
                senderProvider: "PROVIDER_C"
              }],
              ["a body of 1600 characters", { templates: [{ ...template, messageBody: "y".repeat(1600) }] }, {}],
              ["both statuses with DLT ids and isActive false", {
                isActive: false,
                templates: [
                  {
                    callStatus: "ANSWERED",
                    messageBody: "Hi {{name}}",
                    dltSenderId: "ACMEIN",
                    dltTemplateId: "1107161234567890123"
                  },
                  { callStatus: "UNANSWERED", messageBody: "Missed you {{name}}", dltTemplateId: "1107169999999999999" }
                ]
              }, { isActive: false }]
            ]
            for (const [what, body, expected] of accepted) {
              const agentId = yield* newAgent(a.key, "Extra")
              const reply = yield* post(list, { token: a.key, json: { ...valid, agentId, ...body } })
              assert.strictEqual(reply.status, 201, `${what} → ${reply.text}`)
              assert.deepInclude(reply.body, { agentId, ...expected }, what)
            }
            const dlt = (yield* get(`${list}?pageSize=1`, { token: a.key })).body.items[0]
            assert.deepStrictEqual(dlt.templates.map(({ id: _, ...rest }: any) => rest), [
              {
                callStatus: "ANSWERED",
                messageBody: "Hi {{name}}",
                dltSenderId: "ACMEIN",
                dltTemplateId: "1107161234567890123"
              },
              {
                callStatus: "UNANSWERED",
                messageBody: "Missed you {{name}}",
                dltSenderId: null,
                dltTemplateId: "1107169999999999999"
              }
            ])
            assert.strictEqual(dlt.templates[0].messageBody, "Hi {{name}}")
            const long = (yield* get(`${list}?pageSize=2`, { token: a.key })).body.items[1]
            assert.strictEqual(long.templates[0].messageBody.length, 1600)

            // list, get, PUT, DELETE
            const page = yield* get(list, { token: a.key })
            assert.deepInclude(page.body, { total: 7, page: 1, pageSize: 15, totalPages: 1 })
            assert.strictEqual(page.body.items[6].id, c.id, "newest first")
            refused(yield* get(`${list}?pageSize=101`, { token: a.key }), 400, "VALIDATION_FAILED", "pageSize=101")
            const viaGateway = yield* get(`${gateway}/sms-agent/campaigns?pageSize=3`, { token: a.key })
            assert.deepInclude(
              viaGateway.body,
              { total: 7, pageSize: 3, totalPages: 3 },
              "the gateway routes /sms-agent"
            )

            const url = `${list}/${c.id}`
            assert.deepStrictEqual((yield* get(url, { token: a.key })).body, c)
            refused(yield* get(url, { token: stranger.key }), 404, "SMS_CAMPAIGN_NOT_FOUND", "another tenant's get")
            refused(
              yield* put(url, { token: stranger.key, json: { isActive: false } }),
              404,
              "SMS_CAMPAIGN_NOT_FOUND",
              "another tenant's put"
            )
            refused(yield* del(url, { token: stranger.key }), 404, "SMS_CAMPAIGN_NOT_FOUND", "another tenant's delete")

            const partial = yield* put(url, {
              token: a.key,
              json: { name: "Renamed 2", senderNumber: "ACME", senderProvider: "PROVIDER_B" }
            })
            assert.strictEqual(partial.status, 200, partial.text)
            assert.deepStrictEqual({ ...partial.body, updatedAt: c.updatedAt }, {
              ...c,
              name: "Renamed 2",
              senderNumber: "ACME",
              senderProvider: "PROVIDER_B"
            })
            const cleared = yield* put(url, {
              token: a.key,
              json: { senderNumber: null, senderProvider: null, isActive: false }
            })
            assert.deepInclude(cleared.body, {
              name: "Renamed 2",
              senderNumber: null,
              senderProvider: null,
              isActive: false
            })
            assert.deepStrictEqual(cleared.body.templates, c.templates, "templates kept when not supplied")
            const replaced = yield* put(url, {
              token: a.key,
              json: {
                templates: [{ callStatus: "UNANSWERED", messageBody: "Sorry we missed you", dltSenderId: "ACMEIN" }]
              }
            })
            assert.strictEqual(replaced.status, 200, replaced.text)
            assert.deepStrictEqual(replaced.body.templates.map(({ id: _, ...rest }: any) => rest), [
              {
                callStatus: "UNANSWERED",
                messageBody: "Sorry we missed you",
                dltSenderId: "ACMEIN",
                dltTemplateId: null
              }
            ])
            assert.notStrictEqual(replaced.body.templates[0].id, c.templates[0].id, "a new template id")

            const before = (yield* get(url, { token: a.key })).body
            for (
              const [what, body] of [
                ["name Promo!", { name: "Promo!" }],
                ["templates []", { templates: [] }],
                ["callStatus FAILED", { templates: [{ callStatus: "FAILED", messageBody: "x" }] }],
                ["two UNANSWERED", {
                  templates: [{ callStatus: "UNANSWERED", messageBody: "x" }, {
                    callStatus: "UNANSWERED",
                    messageBody: "y"
                  }]
                }],
                ["a body of 1601", { templates: [{ callStatus: "ANSWERED", messageBody: "z".repeat(1601) }] }],
                ["senderNumber +1234", { senderNumber: "+1234" }],
                ["senderProvider PROVIDER_D", { senderProvider: "PROVIDER_D" }]
              ] as const
            ) {
              refused(yield* put(url, { token: a.key, json: body }), 400, "VALIDATION_FAILED", `PUT ${what}`)
              assert.deepStrictEqual(
                (yield* get(url, { token: a.key })).body,
                before,
                `nothing changed after PUT ${what}`
              )
            }

            const gone = yield* del(url, { token: a.key })
            assert.deepStrictEqual([gone.status, gone.text], [204, ""])
            refused(yield* get(url, { token: a.key }), 404, "SMS_CAMPAIGN_NOT_FOUND", "get after delete")
            refused(yield* del(url, { token: a.key }), 404, "SMS_CAMPAIGN_NOT_FOUND", "delete twice")
            assert.strictEqual(yield* total(list, a.key), 6)
          })
      )

      it.effect(
        "after calls: one SMS and one chat-app message per call, rendered for the contact, sent, and charged",
        () =>
          Effect.gen(function*() {
            const { campaign, comms, gateway } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account(1000)
            const answeredTo = phone("0001")
            const busyTo = phone("9001")

            const contactList = yield* post(`${campaign}/contact-lists`, {
              token: a.key,
              json: { name: `Messaging ${++unique}` }
            })
            assert.strictEqual(contactList.status, 201, contactList.text)
            const contact = (phoneNumber: string, name: string) =>
              Effect.gen(function*() {
                const reply = yield* post(`${campaign}/contact-lists/${contactList.body.id}/contacts`, {
                  token: a.key,
                  json: {
                    phoneNumber,
                    name,
                    email: `${name.split(" ")[0]!.toLowerCase()}@example.com`,
                    metadata: { plan: "gold" }
                  }
                })
                assert.strictEqual(reply.status, 201, reply.text)
                return reply.body.id as string
              })
            const ada = yield* contact(answeredTo, "Ada Lovelace")
            const grace = yield* contact(busyTo, "Grace Hopper")

            const answeredBody = "Thanks {{name}}! 🙂 Reply STOP to opt out."
            const unansweredBody = "Sorry we missed you, {{name}}. " +
              "We will call again at a better time; reply with a time that suits you. ".repeat(2)
            const sms = yield* post(`${campaign}/sms-agent/campaigns`, {
              token: a.key,
              json: {
                agentId: a.agentId,
                name: "After call",
                senderNumber: "+14155552671",
                templates: [
                  { callStatus: "ANSWERED", messageBody: answeredBody },
                  {
                    callStatus: "UNANSWERED",
                    messageBody: unansweredBody,
                    dltSenderId: "ACMEIN",
                    dltTemplateId: "1107161234567890123"
                  }
                ]
              }
            })
            assert.strictEqual(sms.status, 201, sms.text)
            const chat = yield* post(`${campaign}/chatapp/campaigns`, {
              token: a.key,
              json: {
                agentId: a.agentId,
                phoneNumberId: "106540352242922",
                templates: [
                  mapping("OUTGOING", "ANSWERED", { bodyParameters: ["{{name}}", "{{metadata.plan}}"] }),
                  mapping("OUTGOING", "BUSY", {
                    templateName: "missed_call",
                    languageCode: "es_ES",
                    bodyParameters: ["{{ name }}", "{{phone}}"]
                  }),
                  mapping("INCOMING", "ANSWERED", { templateName: "never_used" })
                ]
              }
            })
            assert.strictEqual(chat.status, 201, chat.text)

            const call = (toNumber: string, customerId: string) =>
              Effect.gen(function*() {
                const placed = yield* post(`${comms}/channels/voice/call`, {
                  token: a.key,
                  json: { agentId: a.agentId, voiceNumberId: a.voiceNumberId, toNumber, customerId }
                })
                assert.strictEqual(placed.status, 202, placed.text)
                return placed.body.sessionId as string
              })
            const answeredSession = yield* call(answeredTo, ada)
            const busySession = yield* call(busyTo, grace)
            const sessions = [answeredSession, busySession]
            const ended = []
            for (const id of sessions) {
              ended.push(
                yield* waitFor(`${comms}/calls/${id}`, a.key, (b) => b.status === "ENDED", `call ${id} ending`)
              )
            }
            assert.deepStrictEqual(ended.map((s) => s.outcome), ["ANSWERED", "BUSY"])
            const callCost = ended.reduce((sum, s) => sum + (s.cost as number), 0)

            const allSent = (b: any) => b.total === 2 && b.items.every((m: any) => m.status === "SENT")
            const smsLog = yield* waitFor(`${campaign}/sms-agent/messages`, a.key, allSent, "both SMS sent")
            const chatLog = yield* waitFor(
              `${campaign}/chatapp/messages`,
              a.key,
              allSent,
              "both chat-app messages sent"
            )
            const bySession = (items: Array<any>, id: string) => {
              const found = items.filter((m) => m.sessionId === id)
              assert.strictEqual(found.length, 1, `exactly one message for session ${id}`)
              return found[0]
            }

            const common = (m: any) => {
              assert.match(m.providerMessageId, /^sim-[0-9a-f-]{36}$/)
              assert.deepInclude(m, {
                agentId: a.agentId,
                callDirection: "OUTGOING",
                adapter: "simulated",
                status: "SENT",
                currency: "USD",
                attempts: 1,
                lastHttpStatus: null,
                errorCode: null,
                errorMessage: null,
                nextAttemptAt: null,
                deliveredAt: null,
                readAt: null,
                failedAt: null
              })
              assert.isTrue(isoTimestamp(m.sentAt) && isoTimestamp(m.createdAt))
            }
            const smsAnswered = bySession(smsLog.items, answeredSession)
            common(smsAnswered)
            assert.deepInclude(smsAnswered, {
              channel: "SMS",
              campaignId: sms.body.id,
              contactId: ada,
              callOutcome: "ANSWERED",
              to: answeredTo,
              sender: "+14155552671",
              provider: "PROVIDER_A",
              templateName: null,
              languageCode: null,
              body: "Thanks Ada Lovelace! 🙂 Reply STOP to opt out.",
              encoding: "UCS2",
              segments: 1,
              cost: 1
            })
            assert.deepStrictEqual(smsAnswered.bodyParameters, [])
            const smsBusy = bySession(smsLog.items, busySession)
            common(smsBusy)
            const renderedUnanswered = unansweredBody.replace("{{name}}", "Grace Hopper")
            assert.isAbove(renderedUnanswered.length, 160)
            assert.isAtMost(renderedUnanswered.length, 306)
            assert.deepInclude(smsBusy, {
              channel: "SMS",
              contactId: grace,
              callOutcome: "BUSY",
              to: busyTo,
              body: renderedUnanswered,
              encoding: "GSM7",
              segments: 2,
              cost: 2
            })

            const chatAnswered = bySession(chatLog.items, answeredSession)
            common(chatAnswered)
            assert.deepInclude(chatAnswered, {
              channel: "CHATAPP",
              campaignId: chat.body.id,
              contactId: ada,
              callOutcome: "ANSWERED",
              to: answeredTo,
              sender: "106540352242922",
              provider: "CHATAPP",
              templateName: "call_followup",
              languageCode: "en_US",
              body: null,
              encoding: null,
              segments: null,
              cost: 1
            })
            assert.deepStrictEqual(chatAnswered.bodyParameters, ["Ada Lovelace", "gold"])
            const chatBusy = bySession(chatLog.items, busySession)
            common(chatBusy)
            assert.deepInclude(chatBusy, {
              callOutcome: "BUSY",
              to: busyTo,
              templateName: "missed_call",
              languageCode: "es_ES",
              cost: 1
            })
            assert.deepStrictEqual(chatBusy.bodyParameters, ["Grace Hopper", busyTo])
            const providerIds = [smsAnswered, smsBusy, chatAnswered, chatBusy].map((m) => m.providerMessageId)
            assert.strictEqual(new Set(providerIds).size, 4)

            // filters
            const filtered = yield* get(`${campaign}/sms-agent/messages?sessionId=${busySession}&status=SENT`, {
              token: a.key
            })
            assert.deepStrictEqual(filtered.body.items.map((m: any) => m.id), [smsBusy.id])
            assert.strictEqual(yield* total(`${campaign}/chatapp/messages?status=FAILED`, a.key), 0)
            refused(
              yield* get(`${campaign}/chatapp/messages?status=LOST`, { token: a.key }),
              400,
              "VALIDATION_FAILED",
              "unknown status filter"
            )
            const stranger = yield* account()
            assert.strictEqual(
              yield* total(`${campaign}/sms-agent/messages`, stranger.key),
              0,
              "another tenant's log is its own"
            )

            // the wallet paid for the calls and exactly the message costs
            const messageCost = 1 + 2 + 1 + 1
            const wallet = yield* get(`${gateway}/wallet`, { token: a.token })
            assert.deepStrictEqual(wallet.body, {
              currency: "USD",
              balance: 1000 - callCost - messageCost,
              reserved: 0,
              available: 1000 - callCost - messageCost
            })
            const ledger = (yield* get(`${gateway}/billing/transactions?pageSize=100`, { token: a.token })).body
              .items as Array<any>
            const charges = (kind: string) =>
              ledger.filter((t) => t.kind === kind).map((t) => [t.reference, t.amount]).sort((x, y) =>
                String(x[0]).localeCompare(String(y[0]))
              )
            assert.deepStrictEqual(
              charges("sms_charge"),
              [[smsAnswered.id, -1], [smsBusy.id, -2]].sort((x, y) => String(x[0]).localeCompare(String(y[0])))
            )
            assert.deepStrictEqual(
              charges("chatapp_charge"),
              [[chatAnswered.id, -1], [chatBusy.id, -1]].sort((x, y) => String(x[0]).localeCompare(String(y[0])))
            )
            assert.strictEqual(
              ledger.reduce((sum, t) => sum + t.amount, 0),
              wallet.body.balance,
              "the ledger adds up to the balance"
            )
            const usage = yield* get(`${gateway}/billing/usage`, { token: a.token })
            assert.deepInclude(usage.body.spend, { sms: 3, chatApp: 2 }, usage.text)

            // the platform reports delivery and reading of the chat-app message through the webhook
            yield* post(`${campaign}/chatapp/webhook-token`, { token: a.key })
            // Meta's timestamps (Unix seconds), a few seconds after the sends on the clock the platform runs on
            const after = (message: any, seconds: number) => Math.floor(Date.parse(message.sentAt) / 1000) + seconds
            const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString()
            const [deliveredAt, readAt, failedAt] = [
              after(chatAnswered, 10),
              after(chatAnswered, 15),
              after(chatBusy, 16)
            ]
            const raw = JSON.stringify(notification({
              statuses: [
                statusUpdate(chatAnswered.providerMessageId, "delivered", String(deliveredAt)),
                statusUpdate(chatAnswered.providerMessageId, "read", String(readAt)),
                statusUpdate(chatBusy.providerMessageId, "failed", String(failedAt))
              ]
            }))
            const receipt = yield* deliver(campaign, a.tenantId, raw)
            assert.deepStrictEqual([receipt.status, receipt.body], [200, { statuses: 3, replies: 0 }], receipt.text)
            const read =
              (yield* get(`${campaign}/chatapp/messages?sessionId=${answeredSession}`, { token: a.key })).body.items[0]
            assert.deepInclude(read, { status: "READ", deliveredAt: isoOf(deliveredAt), readAt: isoOf(readAt) })
            const failed =
              (yield* get(`${campaign}/chatapp/messages?sessionId=${busySession}`, { token: a.key })).body.items[0]
            assert.deepInclude(failed, { status: "FAILED", failedAt: isoOf(failedAt) })
            const replay = yield* deliver(campaign, a.tenantId, raw)
            assert.deepStrictEqual(replay.body, { statuses: 0, replies: 0 })
            assert.strictEqual(
              (yield* get(`${gateway}/wallet`, { token: a.token })).body.balance,
              wallet.body.balance,
              "no further charge"
            )
          })
      )

      it.effect(
        "chat-app language variants: one outcome per language, more than 8 mappings, a repeated triple refused; the " +
          "variant sent follows the contact's, then the agent's language, else en_US",
        () =>
          Effect.gen(function*() {
            const { campaign, comms } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account(1000)
            const list = `${campaign}/chatapp/campaigns`
            const plain = yield* newAgent(a.key, "Plain")

            // the agent speaks Hindi: settings.languageCode, a language tag like a mapping's
            const patchAgent = (json: unknown) =>
              request("PATCH", `${comms}/agents/${a.agentId}`, { token: a.key, json })
            refused(
              yield* patchAgent({ settings: { languageCode: "hindi" } }),
              400,
              "VALIDATION_FAILED",
              "settings.languageCode hindi"
            )
            refused(
              yield* patchAgent({ settings: { languageCode: "hi-IN" } }),
              400,
              "VALIDATION_FAILED",
              "settings.languageCode hi-IN"
            )
            const hindi = yield* patchAgent({ settings: { languageCode: "hi_IN" } })
            assert.strictEqual(hindi.status, 200, hindi.text)
            assert.deepStrictEqual(hindi.body.settings, { languageCode: "hi_IN" })

            // every pair in en_US, and OUTGOING ANSWERED also in hi_IN and es_ES: 10 mappings
            const variants = [
              ...allPairs,
              mapping("OUTGOING", "ANSWERED", { templateName: "followup_hi", languageCode: "hi_IN" }),
              mapping("OUTGOING", "ANSWERED", { templateName: "followup_es", languageCode: "es_ES" })
            ]
            const repeats: Array<[string, Array<Record<string, unknown>>]> = [
              ["a repeated hi_IN variant", [
                ...variants,
                mapping("OUTGOING", "ANSWERED", { templateName: "again", languageCode: "hi_IN" })
              ]],
              ["an explicit en_US beside the default", [
                ...variants,
                mapping("INCOMING", "BUSY", { templateName: "again", languageCode: "en_US" })
              ]]
            ]
            for (const [what, templates] of repeats) {
              const reply = yield* post(list, { token: a.key, json: { agentId: a.agentId, templates } })
              refused(reply, 400, "VALIDATION_FAILED", what)
              const details = reply.body.error.details as Array<{ path: string; message: string }>
              assert.deepStrictEqual(
                details.map((d) => d.path),
                ["templates[10]"],
                `${what}: the repeat's index → ${reply.text}`
              )
              assert.include(details[0]!.message, "each combination may appear once", what)
              assert.strictEqual(yield* total(list, a.key), 0, `nothing written after ${what}`)
            }

            const campaigns: Record<string, any> = {}
            for (const agentId of [a.agentId, plain]) {
              const created = yield* post(list, {
                token: a.key,
                json: { agentId, phoneNumberId: "106540352242922", templates: variants }
              })
              assert.strictEqual(created.status, 201, created.text)
              assert.deepStrictEqual(
                created.body.templates.map((t: any) => `${t.process}/${t.callStatus}/${t.languageCode}`).slice(-3),
                ["OUTGOING/BUSY/en_US", "OUTGOING/ANSWERED/hi_IN", "OUTGOING/ANSWERED/es_ES"]
              )
              assert.strictEqual(created.body.templates.length, 10)
              campaigns[agentId] = created.body
            }

            // PUT: twenty of any mix (every pair in en_US and hi_IN, the outgoing ones in es_ES too); a repeat changes
            // nothing
            const url = `${list}/${campaigns[plain].id}`
            const twenty = [
              ...allPairs,
              ...allPairs.map((m) => ({ ...m, templateName: "followup_hi", languageCode: "hi_IN" })),
              ...allPairs.filter((m) => m.process === "OUTGOING").map((m) => ({
                ...m,
                templateName: "followup_es",
                languageCode: "es_ES"
              }))
            ]
            assert.strictEqual(twenty.length, 20)
            const replaced = yield* put(url, { token: a.key, json: { templates: twenty } })
            assert.strictEqual(replaced.status, 200, replaced.text)
            assert.strictEqual(replaced.body.templates.length, 20)
            const before = (yield* get(url, { token: a.key })).body
            const repeated = yield* put(url, {
              token: a.key,
              json: { templates: [...twenty.slice(0, 19), { ...twenty[9], templateName: "again" }] }
            })
            refused(repeated, 400, "VALIDATION_FAILED", "PUT a repeated triple")
            assert.deepStrictEqual(
              repeated.body.error.details.map((d: any) => d.path),
              ["templates[19]"],
              repeated.text
            )
            assert.deepStrictEqual(
              (yield* get(url, { token: a.key })).body,
              before,
              "nothing changed after PUT a repeated triple"
            )

            // contacts: one in Spanish (written es-ES: case and - or _ do not matter), one in French (not mapped), one
            // with none
            const contactList = yield* post(`${campaign}/contact-lists`, {
              token: a.key,
              json: { name: `Languages ${++unique}` }
            })
            assert.strictEqual(contactList.status, 201, contactList.text)
            const contact = (name: string, metadata: Record<string, unknown>) =>
              Effect.gen(function*() {
                const phoneNumber = phone("0001")
                const reply = yield* post(`${campaign}/contact-lists/${contactList.body.id}/contacts`, {
                  token: a.key,
                  json: { phoneNumber, name, metadata }
                })
                assert.strictEqual(reply.status, 201, reply.text)
                return { id: reply.body.id as string, phoneNumber }
              })
            const spanish = yield* contact("Ana", { languageCode: "es-ES" })
            const french = yield* contact("Amélie", { languageCode: "fr_FR" })
            const silent = yield* contact("Asha", { plan: "gold" })

            const call = (agentId: string, to: { id: string; phoneNumber: string }) =>
              Effect.gen(function*() {
                const placed = yield* post(`${comms}/channels/voice/call`, {
                  token: a.key,
                  json: { agentId, voiceNumberId: a.voiceNumberId, toNumber: to.phoneNumber, customerId: to.id }
                })
                assert.strictEqual(placed.status, 202, placed.text)
                return placed.body.sessionId as string
              })
            const expectations: Array<[string, string, string, string]> = [
              ["the contact's language", yield* call(a.agentId, spanish), "es_ES", "followup_es"],
              ["the agent's language: the contact has none", yield* call(a.agentId, silent), "hi_IN", "followup_hi"],
              [
                "the agent's language: the contact's is not mapped",
                yield* call(a.agentId, french),
                "hi_IN",
                "followup_hi"
              ],
              ["the contact's language on an agent without one", yield* call(plain, spanish), "es_ES", "followup_es"],
              ["en_US: neither has a language", yield* call(plain, silent), "en_US", "call_followup"],
              [
                "en_US: the contact's is not mapped and the agent has none",
                yield* call(plain, french),
                "en_US",
                "call_followup"
              ]
            ]
            const sentOnly = (b: any) => b.total === 1 && b.items[0].status === "SENT"
            for (const [what, sessionId, languageCode, templateName] of expectations) {
              const ended = yield* waitFor(
                `${comms}/calls/${sessionId}`,
                a.key,
                (b) => b.status === "ENDED",
                `${what}: the call ending`
              )
              assert.strictEqual(ended.outcome, "ANSWERED", what)
              const sent = (yield* waitFor(
                `${campaign}/chatapp/messages?sessionId=${sessionId}`,
                a.key,
                sentOnly,
                `${what}: the message sent`
              ))
                .items[0]
              assert.deepInclude(sent, {
                callDirection: "OUTGOING",
                callOutcome: "ANSWERED",
                languageCode,
                templateName,
                status: "SENT"
              }, what)
            }
          })
      )

      it.effect("one campaign per agent holds under concurrent creates", () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const a = yield* account()
          const race = (url: string, json: unknown) =>
            Effect.all(Array.from({ length: 6 }, () => post(url, { token: a.key, json })), { concurrency: "unbounded" })
          const chat = yield* race(`${campaign}/chatapp/campaigns`, {
            agentId: a.agentId,
            templates: [mapping("OUTGOING", "ANSWERED")]
          })
          assert.deepStrictEqual(
            chat.map((r) => r.status).sort(),
            [201, 409, 409, 409, 409, 409],
            chat.map((r) => r.text).join("\n")
          )
          for (const r of chat.filter((r) => r.status === 409)) {
            refused(r, 409, "CHATAPP_CAMPAIGN_EXISTS", "a concurrent second chat-app campaign")
          }
          const sms = yield* race(`${campaign}/sms-agent/campaigns`, {
            agentId: a.agentId,
            templates: [{ callStatus: "ANSWERED", messageBody: "Hi" }]
          })
          assert.deepStrictEqual(
            sms.map((r) => r.status).sort(),
            [201, 409, 409, 409, 409, 409],
            sms.map((r) => r.text).join("\n")
          )
          for (
            const r of sms.filter((r) => r.status === 409)
          ) {
            refused(r, 409, "SMS_CAMPAIGN_EXISTS", "a concurrent second SMS campaign")
          }
          assert.strictEqual(yield* total(`${campaign}/chatapp/campaigns`, a.key), 1)
          assert.strictEqual(yield* total(`${campaign}/sms-agent/campaigns`, a.key), 1)
        }))

      it.effect("concurrent first webhook-token requests all answer the one token", () =>
        Effect.gen(function*() {
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          // a few fresh tenants, so that the first requests really do race
          for (let round = 0; round < 3; round++) {
            const a = yield* account()
            const replies = yield* Effect.all(
              Array.from({ length: 12 }, () => post(`${campaign}/chatapp/webhook-token`, { token: a.key })),
              { concurrency: "unbounded" }
            )
            const failed = replies.filter((r) => r.status !== 200)
            assert.deepStrictEqual(failed.map((r) => `${r.status} ${r.text}`), [], "every request answers 200")
            assert.strictEqual(new Set(replies.map((r) => r.body.token)).size, 1, "one token")
            const details = yield* get(`${campaign}/chatapp/webhook-details`, { token: a.key })
            assert.strictEqual(details.body.verifyToken, replies[0]!.body.token)
          }
        }))

      it.effect(
        "senders: the agent's phone_number for SMS when the campaign names none; no sender at all: FAILED NO_SENDER, " +
          "not charged",
        () =>
          Effect.gen(function*() {
            const { campaign, comms, gateway } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account(1000)
            const voice = yield* request("PATCH", `${comms}/agents/${a.agentId}`, {
              token: a.key,
              json: { channel: "VOICE", settings: { phone_provider: "PROVIDER_B", phone_number: "+14155552671" } }
            })
            assert.strictEqual(voice.status, 200, voice.text)
            const bare = yield* newAgent(a.key, "Bare")
            for (const agentId of [a.agentId, bare]) {
              const sms = yield* post(`${campaign}/sms-agent/campaigns`, {
                token: a.key,
                json: {
                  agentId,
                  senderProvider: "PROVIDER_C",
                  templates: [{ callStatus: "UNANSWERED", messageBody: "Call us back: {{phone}} [ref €5]" }]
                }
              })
              const chat = yield* post(`${campaign}/chatapp/campaigns`, {
                token: a.key,
                json: { agentId, templates: [mapping("OUTGOING", "FAILED")] }
              })
              assert.deepStrictEqual([sms.status, chat.status], [201, 201], `${sms.text} ${chat.text}`)
            }
            const call = (agentId: string) =>
              Effect.gen(function*() {
                const toNumber = phone("9003")
                const placed = yield* post(`${comms}/channels/voice/call`, {
                  token: a.key,
                  json: { agentId, voiceNumberId: a.voiceNumberId, toNumber }
                })
                assert.strictEqual(placed.status, 202, placed.text)
                const ended = yield* waitFor(
                  `${comms}/calls/${placed.body.sessionId}`,
                  a.key,
                  (b) => b.status === "ENDED",
                  "the call ending"
                )
                assert.deepStrictEqual([ended.outcome, ended.cost], ["FAILED", 0])
                return { sessionId: placed.body.sessionId as string, toNumber }
              })

            const withVoice = yield* call(a.agentId)
            const sentOnly = (b: any) => b.total === 1 && b.items[0].status === "SENT"
            const sms = (yield* waitFor(
              `${campaign}/sms-agent/messages?sessionId=${withVoice.sessionId}`,
              a.key,
              sentOnly,
              "the SMS sent"
            )).items[0]
            assert.deepInclude(sms, {
              sender: "+14155552671",
              provider: "PROVIDER_C",
              callOutcome: "FAILED",
              body: `Call us back: ${withVoice.toNumber} [ref €5]`,
              encoding: "GSM7",
              segments: 1,
              cost: 1
            })

            // no chat-app sender anywhere, and no SMS sender: both recorded as failed at once
            const without = yield* call(bare)
            const smsFailed =
              (yield* get(`${campaign}/sms-agent/messages?sessionId=${without.sessionId}`, { token: a.key })).body
            const chatFailed =
              (yield* get(`${campaign}/chatapp/messages?sessionId=${without.sessionId}`, { token: a.key })).body
            for (const log of [smsFailed, chatFailed]) {
              assert.strictEqual(log.total, 1)
              assert.deepInclude(log.items[0], {
                status: "FAILED",
                errorCode: "NO_SENDER",
                sender: null,
                cost: 0,
                attempts: 0,
                providerMessageId: null
              })
              assert.isTrue(isoTimestamp(log.items[0].failedAt))
            }
            assert.deepInclude(
              (yield* get(`${campaign}/chatapp/messages?sessionId=${withVoice.sessionId}`, { token: a.key })).body
                .items[0],
              {
                status: "FAILED",
                errorCode: "NO_SENDER"
              },
              "the voice number is no chat-app sender"
            )
            const wallet = (yield* get(`${gateway}/wallet`, { token: a.token })).body
            assert.deepStrictEqual(
              wallet,
              { currency: "USD", balance: 999, reserved: 0, available: 999 },
              "only the one SMS sent is charged"
            )
          })
      )

      it.effect(
        "inactive campaigns and unmapped outcomes send nothing; an attached number is the chat-app sender",
        () =>
          Effect.gen(function*() {
            const { campaign, comms } = yield* TestPlatform.TestPlatformUrls
            const a = yield* account(1000)
            const sms = yield* post(`${campaign}/sms-agent/campaigns`, {
              token: a.key,
              json: {
                agentId: a.agentId,
                senderNumber: "ACME",
                isActive: false,
                templates: [{ callStatus: "ANSWERED", messageBody: "Hi {{name}}" }]
              }
            })
            const chat = yield* post(`${campaign}/chatapp/campaigns`, {
              token: a.key,
              json: {
                agentId: a.agentId,
                phoneNumberId: "pn-campaign",
                isActive: false,
                templates: [mapping("OUTGOING", "ANSWERED")]
              }
            })
            assert.deepStrictEqual([sms.status, chat.status], [201, 201])
            const call = (toNumber: string) =>
              Effect.gen(function*() {
                const placed = yield* post(`${comms}/channels/voice/call`, {
                  token: a.key,
                  json: { agentId: a.agentId, voiceNumberId: a.voiceNumberId, toNumber }
                })
                assert.strictEqual(placed.status, 202, placed.text)
                const ended = yield* waitFor(
                  `${comms}/calls/${placed.body.sessionId}`,
                  a.key,
                  (b) => b.status === "ENDED",
                  "the call ending"
                )
                return ended
              })
            const messagesOf = (sessionId: string) =>
              Effect.all([
                total(`${campaign}/sms-agent/messages?sessionId=${sessionId}`, a.key),
                total(`${campaign}/chatapp/messages?sessionId=${sessionId}`, a.key)
              ])

            // the message rows are written in the transaction that ends the call, so none now means none ever
            const inactive = yield* call(phone("0001"))
            assert.strictEqual(inactive.outcome, "ANSWERED")
            assert.deepStrictEqual(yield* messagesOf(inactive.sessionId), [0, 0], "inactive campaigns send nothing")

            yield* put(`${campaign}/sms-agent/campaigns/${sms.body.id}`, { token: a.key, json: { isActive: true } })
            yield* put(`${campaign}/chatapp/campaigns/${chat.body.id}`, { token: a.key, json: { isActive: true } })
            const unmapped = yield* call(phone("9001"))
            assert.strictEqual(unmapped.outcome, "BUSY")
            assert.deepStrictEqual(
              yield* messagesOf(unmapped.sessionId),
              [0, 0],
              "no template for UNANSWERED (SMS) or OUTGOING BUSY (chat-app)"
            )

            const attached = yield* post(`${campaign}/chatapp/agents/${a.agentId}/attach-number`, {
              token: a.key,
              json: { phoneNumberId: "pn-attached" }
            })
            assert.strictEqual(attached.status, 200, attached.text)
            const active = yield* call(phone("0001"))
            const sentOnly = (b: any) => b.total === 1 && b.items[0].status === "SENT"
            const smsSent = (yield* waitFor(
              `${campaign}/sms-agent/messages?sessionId=${active.sessionId}`,
              a.key,
              sentOnly,
              "the SMS sent"
            )).items[0]
            const chatSent = (yield* waitFor(
              `${campaign}/chatapp/messages?sessionId=${active.sessionId}`,
              a.key,
              sentOnly,
              "the chat-app message sent"
            )).items[0]
            assert.deepInclude(smsSent, {
              sender: "ACME",
              body: "Hi Customer",
              contactId: null,
              encoding: "GSM7",
              segments: 1,
              cost: 1
            })
            assert.deepInclude(chatSent, {
              sender: "pn-attached",
              templateName: "call_followup",
              contactId: null,
              cost: 1
            })
            assert.strictEqual(yield* total(`${campaign}/sms-agent/messages`, a.key), 1)
            assert.strictEqual(yield* total(`${campaign}/chatapp/messages`, a.key), 1)
          })
      )
    }
  )
})
