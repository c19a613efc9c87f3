/**
 * The testing kit's walk in two parts: 13 idle virtual hours after a campaign is scheduled, then a
 * 09:00–10:00 New York window of CONTACTS dials (default 600) at 1 dial/s; wall time of each and the
 * clock's pending sleeps after each (TestClock.sleeps()). Run: CONTACTS=600 npx tsx bench/perf/TestKitWalk.ts
 */
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { answeredNumbers } from "../lib/Api.js"

const contacts = Number(process.env["CONTACTS"] ?? 600)
const program = Effect.gen(function*() {
  yield* TestKit.startAt("2026-01-05T00:00:00Z")
  const { tenantId, agentId } = yield* TestKit.tenant({ balance: 1_000_000_000 })
  const voiceNumberId = yield* TestKit.voiceNumber(tenantId, "+14155550100")
  const contactListId = yield* TestKit.contactList(tenantId, answeredNumbers(contacts, 0))
  const c = yield* TestKit.campaign(tenantId, { name: "p", agentId, voiceNumberId, contactListId, maxAttempts: 1, maxConcurrentCalls: 100,
    timezone: "America/New_York", callWindowStart: "09:00", callWindowEnd: "10:00", callDays: [1, 2, 3, 4, 5, 6, 7] })
  yield* (yield* Campaigns).schedule(tenantId, c.id, null).pipe(Effect.orDie)
  let t = performance.now()
  yield* TestKit.advance("13 hours")
  console.log(`idle 13 virtual h: ${((performance.now() - t) / 1000).toFixed(2)} s wall, pending sleeps ${(yield* TestClock.sleeps()).length}`)
  yield* TestKit.advance("1 hour")
  t = performance.now()
  yield* TestKit.advanceTo("2026-01-05T14:00:00Z")
  yield* TestKit.advance(`${Math.ceil(contacts / 60) + 1} minutes`)
  const dials = (yield* (yield* TestKit.Dials).all).length
  console.log(`window: ${dials} dials in ${((performance.now() - t) / 1000).toFixed(2)} s wall (${((performance.now() - t) / dials).toFixed(1)} ms/dial), pending sleeps after ${(yield* TestClock.sleeps()).length}`)
})
await Effect.runPromise(program.pipe(Effect.provide(Layer.provideMerge(TestKit.layer({ ringMillis: 0 }), TestContext.TestContext)), Logger.withMinimumLogLevel(LogLevel.Error)))
process.exit(0)
