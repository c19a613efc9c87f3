/**
 * What the call scenario tests (Twilio, Telnyx, web calls, webhooks) read and check the same way: a
 * call's transcript as lines, the story printed when an assertion fails, the billing of a finished
 * call, and a receiver for the call-result webhook.
 */
import { assert } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { billableSeconds, costOf } from "@voiceagent/domain/CallMachine"
import { Effect } from "effect"
import * as http from "node:http"
import type * as net from "node:net"
import { get } from "./Http.js"

/** The transcript as `speaker: text` lines, `(cut off)` for an interrupted one. */
export const lines = (session: any): Array<string> =>
  session.transcript.map((l: any) => `${l.speaker}${l.interrupted ? " (cut off)" : ""}: ${l.text}`)

/** What a failed assertion prints: status, end reason, transcript and events. */
export const story = (session: any) =>
  JSON.stringify({
    status: session.status,
    endReason: session.endReason,
    transcript: lines(session),
    events: session.events
  })

/**
 * Billed for its talk time (answer to end) to the second, at the rate card's price (`price`) and
 * increment; the wallet charged that, nothing held, and one call charge in the transactions.
 */
export const assertBilled = (
  session: any,
  key: string,
  toppedUp: number,
  price: "voicePerMinute" | "webPerMinute" = "voicePerMinute"
) =>
  Effect.gen(function*() {
    const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
    const rates = (yield* get(`${core}/billing/rates`, { token: key })).body
    const talked = Math.ceil((Date.parse(session.endedAt) - Date.parse(session.answeredAt)) / 1000)
    assert.strictEqual(session.durationSeconds, talked)
    assert.strictEqual(session.billedSeconds, billableSeconds(talked, rates.billingIncrementSeconds))
    assert.strictEqual(session.cost, costOf(session.billedSeconds, rates[price]))
    const wallet = (yield* get(`${core}/wallet`, { token: key })).body
    assert.deepStrictEqual(wallet, {
      currency: "USD",
      balance: toppedUp - session.cost,
      reserved: 0,
      available: toppedUp - session.cost
    })
    const charges = (yield* get(`${core}/billing/transactions`, { token: key })).body.items.filter((t: any) =>
      t.kind === "call_charge"
    )
    assert.deepStrictEqual(
      charges.map((t: any) => [t.amount, t.reference]),
      session.cost === 0 ? [] : [[-session.cost, session.sessionId]]
    )
  })

/** A receiver on loopback for a key's call-result webhook: what it was sent, answered 200. */
export const webhookReceiver = Effect.gen(function*() {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
  const server = yield* Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((req, res) => {
        let body = ""
        req.on("data", (c) => (body += c)).on("end", () => {
          received.push({ headers: req.headers, body })
          res.writeHead(200).end("thanks")
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/calls`, received }
})
