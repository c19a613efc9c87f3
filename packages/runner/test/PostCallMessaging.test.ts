/**
 * Post-call messaging under the TestClock, through the testing kit: template selection for every
 * (direction, outcome) pair, exactly one message per call and channel, wallet charges, the retry
 * schedule (5xx and timeouts retried, 4xx not), insufficient funds, status updates from the webhook,
 * and a crash between the provider's answer and the row being marked sent.
 *
 * Provider adapters run against `FakeMessaging` on loopback (real HTTP). Between clock moves the
 * tests wait in real time for the database to show the result (`eventually`): the adapters' HTTP
 * round trips are real I/O the clock does not see.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { CallOutcome } from "@voiceagent/domain/CallMachine"
import { type CallSpec, LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, ContactId, ContactListId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import type { CallEndedEvent } from "@voiceagent/runner/CallRecords/CallEnded"
import { ContactListsRepo } from "@voiceagent/runner/Contacts/ContactListsRepo"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { makeAzureSmsSender } from "@voiceagent/runner/Messaging/AzureSms"
import { MessageOutbox } from "@voiceagent/runner/Messaging/MessageOutbox"
import { makeTwilioSmsSender } from "@voiceagent/runner/Messaging/TwilioSms"
import { makeWhatsAppCloudSender } from "@voiceagent/runner/Messaging/WhatsAppCloud"
import type { SmsSender } from "@voiceagent/runner/Ports/MessageSenders"
import { FakeMessaging } from "@voiceagent/runner/Testing/FakeMessaging"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Clock, Effect, Layer, Redacted } from "effect"
import * as crypto from "node:crypto"

const START = "2026-11-23T15:00:00Z"

const eventually = TestKit.eventually

const messageRows = (tenantId: TenantId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<any>`SELECT * FROM messages WHERE tenant_id = ${tenantId} ORDER BY created_at, channel`.pipe(Effect.orDie)
  )

const ledger = (tenantId: TenantId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ kind: string; amount: number; reference: string | null }>`
      SELECT kind, amount, reference FROM ledger_transactions WHERE tenant_id = ${tenantId} AND kind <> 'top_up'
        ORDER BY id
    `.pipe(Effect.orDie))

/** A contact of the tenant, for `{{name}}` and `{{metadata.*}}`. */
const contact = (
  tenantId: TenantId,
  phoneNumber: string,
  name: string | null,
  metadata: Record<string, unknown> = {}
) =>
  Effect.gen(function*() {
    const lists = yield* ContactListsRepo
    const contacts = yield* ContactsRepo
    const sql = yield* SqlClient.SqlClient
    const list = yield* lists.create(tenantId, `list-${crypto.randomUUID()}`, {}).pipe(Effect.orDie)
    yield* contacts.insertMany({ tenantId, listId: list.id as ContactListId }, [{
      phoneNumber,
      name,
      email: "ada@example.com",
      metadata
    }])
      .pipe(sql.withTransaction, Effect.orDie)
    const [row] = yield* sql<{ id: string }>`SELECT id FROM contacts WHERE contact_list_id = ${list.id}`.pipe(
      Effect.orDie
    )
    return row!.id as ContactId
  })

/** A call ended with `outcome`: an outgoing one calls +91 98123 45678, an incoming one comes from it. */
const ended = (
  t: { readonly tenantId: TenantId; readonly agentId: AgentId },
  direction: "OUTGOING" | "INCOMING",
  outcome: CallOutcome,
  customerId: ContactId | null = null
): CallEndedEvent =>
  TestKit.callEndedEvent(t, {
    direction,
    outcome,
    customerId,
    fromNumber: direction === "OUTGOING" ? "+14155550100" : "+919812345678",
    toNumber: direction === "OUTGOING" ? "+919812345678" : "+14155550100"
  })

const publish = (event: CallEndedEvent) => TestKit.publishCallEnded(event)

/** The tenant's first message, once it has `status` (waiting in real time). */
const firstWithStatus = (tenantId: TenantId, status: string) =>
  eventually(Effect.gen(function*() {
    const [row] = yield* messageRows(tenantId)
    assert.strictEqual(row?.status, status)
    return row
  }))

/**
 * A tenant whose agent's chat-app campaign answers `outcome`,
 * after one outgoing call ended that way and its message was sent.
 */
const sentChatApp = (outcome: "ANSWERED" | "BUSY") =>
  Effect.gen(function*() {
    yield* TestKit.startAt(START)
    const t = yield* TestKit.tenant({ balance: 100 })
    yield* TestKit.chatAppCampaign(t.tenantId, {
      agentId: t.agentId,
      phoneNumberId: "106540352242922",
      templates: [{ templateName: "followup", process: "OUTGOING", callStatus: outcome }]
    })
    yield* publish(ended(t, "OUTGOING", outcome))
    yield* TestKit.advance("2 seconds")
    return { t, sent: yield* firstWithStatus(t.tenantId, "SENT") }
  })

const ALL_PAIRS = (["OUTGOING", "INCOMING"] as const).flatMap((direction) =>
  (["ANSWERED", "UNANSWERED", "BUSY", "FAILED", "CANCELED"] as const).map((outcome) => ({ direction, outcome }))
)

// ---------------------------------------------------------------------------
// Real adapters against the loopback fake
// ---------------------------------------------------------------------------

/** The next `n` sends through this sender die after the provider answered: a crash before SENT is written. */
let crashes = 0
const crashingAfterSend = (sender: SmsSender): SmsSender => ({
  ...sender,
  send: (message) =>
    Effect.flatMap(
      sender.send(message),
      (result) =>
        crashes > 0
          ? Effect.sync(() => crashes--).pipe(Effect.zipRight(Effect.die("crash after the provider answered")))
          : Effect.succeed(result)
    )
})

const AdaptersKit = TestKit.layer({
  runtime: {
    senders: {
      chatApp: Effect.flatMap(
        FakeMessaging,
        (fake) =>
          makeWhatsAppCloudSender({
            baseUrl: fake.url,
            apiVersion: "v21.0",
            accessToken: Redacted.make(fake.credentials.whatsapp.accessToken)
          })
      ),
      sms: {
        PROVIDER_A: Effect.flatMap(FakeMessaging, (fake) =>
          makeTwilioSmsSender({
            baseUrl: fake.url,
            accountSid: fake.credentials.twilio.accountSid,
            authToken: Redacted.make(fake.credentials.twilio.authToken)
          }).pipe(Effect.map(crashingAfterSend))),
        PROVIDER_C: Effect.flatMap(
          FakeMessaging,
          (fake) =>
            makeAzureSmsSender({ endpoint: fake.url, accessKey: Redacted.make(fake.credentials.acs.accessKey) }).pipe(
              Effect.map(crashingAfterSend)
            )
        )
      }
    }
  }
}).pipe(Layer.provideMerge(FakeMessaging.layer()))

const smsSetup = (provider: "PROVIDER_A" | "PROVIDER_C", balance = 1000) =>
  Effect.gen(function*() {
    const t = yield* TestKit.tenant({ balance })
    yield* TestKit.smsCampaign(t.tenantId, {
      agentId: t.agentId,
      senderNumber: "+14155550100",
      senderProvider: provider,
      templates: [{ callStatus: "ANSWERED", messageBody: "Thanks for your time, {{name}}" }]
    })
    yield* publish(ended(t, "OUTGOING", "ANSWERED"))
    return t
  })

const rowOf = (tenantId: TenantId) => Effect.map(messageRows(tenantId), (rows) => rows[0])

// Each kit layer is named (its own describe): two runtimes built at once collide on the cluster's singletons.
describe("post-call messaging", () => {
  it.layer(TestKit.layer(), { timeout: 180_000 })("on the simulated senders", (it) => {
    it.effect("every (direction, outcome) pair picks its chat-app mapping; SMS goes by answered or not", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const t = yield* TestKit.tenant({ balance: 10_000 })
        const chatApp = yield* TestKit.chatAppCampaign(t.tenantId, {
          agentId: t.agentId,
          phoneNumberId: "106540352242922",
          templates: (["OUTGOING", "INCOMING"] as const).flatMap((process) =>
            (["ANSWERED", "UNANSWERED", "FAILED", "BUSY"] as const).map((callStatus) => ({
              templateName: `${process}_${callStatus}`.toLowerCase(),
              process,
              callStatus
            }))
          )
        })
        assert.strictEqual(chatApp.templates.length, 8)
        yield* TestKit.smsCampaign(t.tenantId, {
          agentId: t.agentId,
          senderNumber: "+14155550100",
          templates: [{ callStatus: "ANSWERED", messageBody: "thanks" }, {
            callStatus: "UNANSWERED",
            messageBody: "missed you"
          }]
        })
        const sessions = new Map<string, { direction: string; outcome: string }>()
        for (const pair of ALL_PAIRS) {
          const event = ended(t, pair.direction, pair.outcome)
          sessions.set(event.sessionId, pair)
          yield* publish(event)
        }
        const rows = yield* messageRows(t.tenantId)
        for (const [sessionId, { direction, outcome }] of sessions) {
          const mine = rows.filter((r) => r.sessionId === sessionId)
          const chat = mine.find((r) => r.channel === "CHATAPP")
          const sms = mine.find((r) => r.channel === "SMS")
          assert.strictEqual(
            chat?.templateName,
            outcome === "CANCELED" ? undefined : `${direction}_${outcome}`.toLowerCase(),
            `${direction} ${outcome}`
          )
          assert.strictEqual(sms?.body, outcome === "ANSWERED" ? "thanks" : "missed you", `${direction} ${outcome}`)
          // an outgoing call messages the number called; an incoming one, the caller
          assert.strictEqual(sms?.toNumber, "+919812345678")
        }
        assert.strictEqual(rows.length, 10 + 8)
      }))

    it.effect(
      "a real call's end writes one message per channel, sent once and charged once; repeats write nothing",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt(START)
          const t = yield* TestKit.tenant({ balance: 10_000 })
          const customer = yield* contact(t.tenantId, "+14155550042", "Ada Lovelace", { plan: "gold" })
          yield* TestKit.smsCampaign(t.tenantId, {
            agentId: t.agentId,
            senderNumber: "ACME",
            templates: [{
              callStatus: "ANSWERED",
              messageBody: "Hi {{name}}, thanks for talking to us about {{metadata.plan}} €"
            }]
          })
          yield* TestKit.chatAppCampaign(t.tenantId, {
            agentId: t.agentId,
            phoneNumberId: "106540352242922",
            templates: [{
              templateName: "call_followup",
              process: "OUTGOING",
              callStatus: "ANSWERED",
              bodyParameters: ["{{name}}"]
            }]
          })
          const spec: CallSpec = {
            tenantId: t.tenantId,
            jobId: "job",
            agentId: t.agentId,
            voiceNumberId: crypto.randomUUID() as VoiceNumberId,
            provider: "PROVIDER_A",
            fromNumber: "+14155550100",
            toNumber: "+14155550042",
            customerId: customer,
            campaignId: null,
            campaignAttemptId: null,
            metadata: {},
            dialTimeoutSeconds: 30,
            maxDurationSeconds: 3600,
            concurrencyLimit: 10,
            currency: "USD",
            voicePerMinute: 5,
            billingIncrementSeconds: 6,
            reservationChunkSeconds: 120
          }
          const sessionId = crypto.randomUUID() as SessionId
          yield* (yield* LiveCallEntity.client)(sessionId).Start({ spec })
          // 2 s of ringing, 42 s of talk, then the messages go out at once
          yield* TestKit.advance("50 seconds")
          const rows = yield* eventually(Effect.gen(function*() {
            const rows = yield* messageRows(t.tenantId)
            assert.deepStrictEqual(rows.map((r) => [r.channel, r.status]), [["CHATAPP", "SENT"], ["SMS", "SENT"]])
            return rows
          }))
          const [chat, sms] = rows
          assert.deepStrictEqual(chat.bodyParameters, ["Ada Lovelace"])
          assert.strictEqual(sms.body, "Hi Ada Lovelace, thanks for talking to us about gold €")
          assert.deepStrictEqual([sms.encoding, sms.segments, sms.sender, sms.provider, sms.adapter], [
            "GSM7",
            1,
            "ACME",
            "PROVIDER_A",
            "simulated"
          ])
          assert.deepStrictEqual([Number(chat.cost), Number(sms.cost)], [1, 1])
          assert.isString(chat.providerMessageId)
          const charges = yield* ledger(t.tenantId)
          assert.deepStrictEqual(
            charges.map((c) => [c.kind, Number(c.amount)]).sort(),
            [["call_charge", -4], ["chatapp_charge", -1], ["sms_charge", -1]]
          )
          // the end published again (a retried transaction): the unique (session, channel) key holds
          yield* publish({ ...ended(t, "OUTGOING", "ANSWERED", customer), sessionId })
          yield* TestKit.advance("1 minute")
          assert.strictEqual((yield* messageRows(t.tenantId)).length, 2)
          assert.strictEqual((yield* ledger(t.tenantId)).length, 3)
          const wallet = yield* TestKit.balance(t.tenantId)
          assert.deepStrictEqual([wallet.balance, wallet.reserved], [10_000 - 6, 0])
        })
    )

    it.effect(
      "a long unicode SMS is counted and charged by UCS-2 segments; no sender means FAILED NO_SENDER, nothing charged",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt(START)
          const t = yield* TestKit.tenant({ balance: 10_000 })
          yield* TestKit.smsCampaign(t.tenantId, {
            agentId: t.agentId,
            senderNumber: "+14155550100",
            templates: [{ callStatus: "UNANSWERED", messageBody: "नमस्ते {{name}}! ".repeat(10) }]
          })
          yield* publish(ended(t, "OUTGOING", "BUSY"))
          yield* TestKit.advance("5 seconds")
          const sms = yield* firstWithStatus(t.tenantId, "SENT")
          // "नमस्ते Customer! " is 17 UTF-16 units: 170 units, 67 per segment → 3 segments
          assert.deepStrictEqual([sms.encoding, sms.segments, Number(sms.cost)], ["UCS2", 3, 3])

          const other = yield* TestKit.tenant({ balance: 10_000, agentName: "Unsent" })
          yield* TestKit.smsCampaign(other.tenantId, {
            agentId: other.agentId,
            templates: [{ callStatus: "ANSWERED", messageBody: "hello" }]
          })
          yield* publish(ended(other, "OUTGOING", "ANSWERED"))
          yield* TestKit.advance("5 seconds")
          const [failed] = yield* messageRows(other.tenantId)
          assert.deepStrictEqual([failed.status, failed.errorCode, failed.attempts, Number(failed.cost)], [
            "FAILED",
            "NO_SENDER",
            0,
            0
          ])
          assert.deepStrictEqual(yield* ledger(other.tenantId), [])
        })
    )

    it.effect("a wallet that cannot cover the message: FAILED INSUFFICIENT_FUNDS, nothing sent, nothing held", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const t = yield* TestKit.tenant({ balance: 0 })
        yield* TestKit.smsCampaign(t.tenantId, {
          agentId: t.agentId,
          senderNumber: "+14155550100",
          templates: [{ callStatus: "ANSWERED", messageBody: "hello" }]
        })
        yield* publish(ended(t, "OUTGOING", "ANSWERED"))
        yield* TestKit.advance("5 seconds")
        const row = yield* firstWithStatus(t.tenantId, "FAILED")
        assert.deepStrictEqual([row.errorCode, row.attempts, row.adapter], ["INSUFFICIENT_FUNDS", 0, null])
        const wallet = yield* TestKit.balance(t.tenantId)
        assert.deepStrictEqual([wallet.balance, wallet.reserved], [0, 0])
      }))

    it.effect("webhook statuses move a message forward only, once each; another tenant's cannot touch it", () =>
      Effect.gen(function*() {
        const { sent, t } = yield* sentChatApp("ANSWERED")
        const outbox = yield* MessageOutbox
        const at = new Date(yield* Clock.currentTimeMillis)
        const status = (s: "sent" | "delivered" | "read" | "failed") => ({
          providerMessageId: sent.providerMessageId,
          status: s,
          at,
          error: null
        })
        assert.deepStrictEqual(yield* outbox.recordInbound(t.tenantId, [status("delivered")], []), {
          statuses: 1,
          replies: 0
        })
        assert.deepStrictEqual(yield* outbox.recordInbound(t.tenantId, [status("delivered")], []), {
          statuses: 0,
          replies: 0
        })
        assert.deepStrictEqual(yield* outbox.recordInbound(t.tenantId, [status("read"), status("failed")], []), {
          statuses: 2,
          replies: 0
        })
        const [after] = yield* messageRows(t.tenantId)
        // failed after delivery is recorded as an event, but the message stays READ
        assert.deepStrictEqual([after.status, after.errorCode], ["READ", null])
        assert.isNotNull(after.deliveredAt)
        assert.isNotNull(after.readAt)
        // another tenant cannot move this tenant's message
        const other = yield* TestKit.tenant()
        yield* outbox.recordInbound(other.tenantId, [{ ...status("failed"), providerMessageId: "wamid.other" }], [])
        assert.strictEqual((yield* messageRows(t.tenantId))[0].status, "READ")
      }))

    it.effect(
      "a message reported failed stays failed without delivery times; replies are recorded once per tenant",
      () =>
        Effect.gen(function*() {
          const { sent, t } = yield* sentChatApp("BUSY")
          const outbox = yield* MessageOutbox
          const at = new Date(yield* Clock.currentTimeMillis)
          const error = { code: "131026", title: "Message undeliverable" }
          yield* outbox.recordInbound(t.tenantId, [{
            providerMessageId: sent.providerMessageId,
            status: "failed",
            at,
            error
          }], [])
          yield* outbox.recordInbound(t.tenantId, [
            { providerMessageId: sent.providerMessageId, status: "delivered", at, error: null },
            { providerMessageId: sent.providerMessageId, status: "read", at, error: null }
          ], [])
          const [after] = yield* messageRows(t.tenantId)
          assert.deepStrictEqual([after.status, after.errorCode, after.errorMessage, after.deliveredAt, after.readAt], [
            "FAILED",
            "131026",
            "Message undeliverable",
            null,
            null
          ])
          const reply = {
            providerMessageId: "wamid.reply-1",
            from: "919812345678",
            phoneNumberId: "106540352242922",
            at,
            type: "text",
            text: "Call me",
            contactName: null,
            raw: {}
          }
          const other = yield* TestKit.tenant()
          assert.deepStrictEqual(yield* outbox.recordInbound(t.tenantId, [], [reply]), { statuses: 0, replies: 1 })
          assert.deepStrictEqual(yield* outbox.recordInbound(t.tenantId, [], [reply]), { statuses: 0, replies: 0 })
          assert.deepStrictEqual(yield* outbox.recordInbound(other.tenantId, [], [reply]), { statuses: 0, replies: 1 })
        })
    )
  })

  it.layer(AdaptersKit, { timeout: 180_000 })("through the provider adapters", (it) => {
    it.effect("5xx and timeouts are retried at 10 s and 1 min (TestClock), then sent; the hold is settled once", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const fake = yield* FakeMessaging
        const before = fake.requests("twilio").length
        fake.fault("twilio", { _tag: "Respond", status: 503 })
        fake.fault("twilio", { _tag: "Hang" })
        const t = yield* smsSetup("PROVIDER_A")
        const t0 = yield* Clock.currentTimeMillis
        yield* TestKit.advance("1 second")
        const first = yield* eventually(Effect.gen(function*() {
          const row = yield* rowOf(t.tenantId)
          assert.deepStrictEqual([row.status, row.attempts, row.lastHttpStatus], ["QUEUED", 1, 503])
          return row
        }))
        assert.strictEqual(new Date(first.nextAttemptAt).getTime() - t0, 10_000)
        assert.deepStrictEqual([(yield* TestKit.balance(t.tenantId)).reserved], [1])
        // nothing before the 10 s are up
        yield* TestKit.advance("8 seconds")
        assert.strictEqual(fake.requests("twilio").length - before, 1)
        // the second attempt hangs: the 10-second send timeout (on the TestClock) gives up on it
        yield* TestKit.advance("2 seconds")
        yield* fake.awaitRequests(before + 2, "twilio")
        yield* TestKit.advance("10 seconds")
        const second = yield* eventually(Effect.gen(function*() {
          const row = yield* rowOf(t.tenantId)
          assert.deepStrictEqual([row.status, row.attempts, row.errorCode], ["QUEUED", 2, "TIMEOUT"])
          return row
        }))
        assert.strictEqual(
          new Date(second.nextAttemptAt).getTime() - new Date(second.firstAttemptAt).getTime(),
          10_000 + 10_000 + 60_000
        )
        // now t0 + 21 s; the third attempt is due at t0 + 80 s
        yield* TestKit.advance("58 seconds")
        assert.strictEqual(fake.requests("twilio").length - before, 2)
        yield* TestKit.advance("2 seconds")
        const sent = yield* eventually(Effect.gen(function*() {
          const row = yield* rowOf(t.tenantId)
          assert.deepStrictEqual([row.status, row.attempts], ["SENT", 3])
          return row
        }))
        assert.match(sent.providerMessageId, /^SM/)
        assert.deepStrictEqual((yield* ledger(t.tenantId)).map((c) => [c.kind, Number(c.amount)]), [["sms_charge", -1]])
        const wallet = yield* TestKit.balance(t.tenantId)
        assert.deepStrictEqual([wallet.balance, wallet.reserved], [999, 0])
      }))

    it.effect("a 4xx is not retried: FAILED with the provider's code, the hold released", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const fake = yield* FakeMessaging
        const before = fake.requests("twilio").length
        fake.fault("twilio", {
          _tag: "Respond",
          status: 400,
          body: {
            code: 21211,
            message: "Invalid 'To' Phone Number",
            more_info: "https://www.twilio.com/docs/errors/21211",
            status: 400
          }
        })
        const t = yield* smsSetup("PROVIDER_A")
        yield* TestKit.advance("1 second")
        const row = yield* eventually(Effect.gen(function*() {
          const row = yield* rowOf(t.tenantId)
          assert.strictEqual(row.status, "FAILED")
          return row
        }))
        assert.deepStrictEqual([row.attempts, row.lastHttpStatus, row.errorCode], [1, 400, "21211"])
        yield* TestKit.advance("3 hours")
        assert.strictEqual(fake.requests("twilio").length - before, 1)
        const wallet = yield* TestKit.balance(t.tenantId)
        assert.deepStrictEqual([wallet.balance, wallet.reserved], [1000, 0])
        assert.deepStrictEqual(yield* ledger(t.tenantId), [])
      }))

    it.effect(
      "a crash between the provider's answer and SENT: sent again with the same key, delivered once (idempotent " +
        "provider)",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt(START)
          const fake = yield* FakeMessaging
          const before = fake.deliveryCount("acs")
          crashes = 1
          const t = yield* smsSetup("PROVIDER_C")
          yield* TestKit.advance("1 second")
          yield* fake.awaitSent("acs", before + 1)
          const stuck = yield* eventually(Effect.gen(function*() {
            const row = yield* rowOf(t.tenantId)
            assert.deepStrictEqual([row.status, row.attempts, row.providerMessageId], ["SENDING", 1, null])
            return row
          }))
          assert.strictEqual(crashes, 0)
          // the claim (1 minute) runs out; the next pass sends the same message id again
          yield* TestKit.advance("61 seconds")
          const row = yield* eventually(Effect.gen(function*() {
            const row = yield* rowOf(t.tenantId)
            assert.deepStrictEqual([row.status, row.attempts], ["SENT", 2])
            return row
          }))
          assert.strictEqual(row.id, stuck.id)
          const requests = fake.requests("acs").slice(-2).map((r) =>
            (r.body as any).smsRecipients[0].repeatabilityRequestId
          )
          assert.deepStrictEqual(requests, [row.id, row.id])
          assert.strictEqual(fake.deliveryCount("acs") - before, 1)
          assert.deepStrictEqual((yield* ledger(t.tenantId)).map((c) => [c.kind, Number(c.amount)]), [[
            "sms_charge",
            -1
          ]])
        })
    )

    it.effect(
      "the same crash with a provider that takes no idempotency key delivers twice (documented), charged once",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt(START)
          const fake = yield* FakeMessaging
          const before = fake.sent("twilio").length
          crashes = 1
          const t = yield* smsSetup("PROVIDER_A")
          yield* TestKit.advance("1 second")
          yield* fake.awaitSent("twilio", before + 1)
          yield* TestKit.advance("61 seconds")
          yield* eventually(Effect.gen(function*() {
            const row = yield* rowOf(t.tenantId)
            assert.deepStrictEqual([row.status, row.attempts], ["SENT", 2])
          }))
          assert.strictEqual(fake.sent("twilio").length - before, 2)
          assert.deepStrictEqual((yield* ledger(t.tenantId)).map((c) => [c.kind, Number(c.amount)]), [[
            "sms_charge",
            -1
          ]])
        })
    )

    it.effect("chat-app template messages go to the WhatsApp Cloud API with the rendered parameters", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const fake = yield* FakeMessaging
        const before = fake.sent("whatsapp").length
        const t = yield* TestKit.tenant({ balance: 100 })
        const customer = yield* contact(t.tenantId, "+919812345678", "Asha")
        yield* TestKit.chatAppCampaign(t.tenantId, {
          agentId: t.agentId,
          phoneNumberId: fake.credentials.whatsapp.phoneNumberId,
          templates: [{
            templateName: "missed_call",
            process: "OUTGOING",
            callStatus: "UNANSWERED",
            languageCode: "hi_IN",
            bodyParameters: ["{{name}}"]
          }]
        })
        yield* publish(ended(t, "OUTGOING", "UNANSWERED", customer))
        yield* TestKit.advance("1 second")
        yield* fake.awaitSent("whatsapp", before + 1)
        const send = fake.sent("whatsapp")[before]!
        assert.deepStrictEqual(send.template, { name: "missed_call", languageCode: "hi_IN", bodyParameters: ["Asha"] })
        assert.strictEqual(send.phoneNumberId, fake.credentials.whatsapp.phoneNumberId)
        const row = yield* eventually(Effect.gen(function*() {
          const row = yield* rowOf(t.tenantId)
          assert.strictEqual(row.status, "SENT")
          return row
        }))
        assert.strictEqual(row.providerMessageId, send.providerMessageId)
        assert.strictEqual(row.adapter, "whatsapp-cloud")
      }))
  })
})
