/**
 * The testing kit's walk in two parts: 13 idle virtual hours after a campaign is scheduled, then a
 * 09:00–10:00 New York window of CONTACTS dials (default 600) at 1 dial/s; wall time of each and the
 * clock's pending sleeps after each (TestClock.sleeps()). Run: CONTACTS=600 npx tsx bench/perf/TestKitWalk.ts
 *
 * Each part also prints where its wall time went: PGlite's own time (its `query`/`exec`, the
 * WebAssembly engine and its protocol parsing, timed around each call), the statements, the turns
 * of the event loop taken (`setImmediate` calls: the kit's `settle` and the PGlite client's turn
 * before each statement), the instants the clock stopped at, and the CPU time (user + system) of
 * the process and of its main thread (the rest is other threads: V8's garbage collector and compiler,
 * tsx's loader, the speech synthesis's workers) against the wall. PGlite's time is wall time around
 * each call: on a loaded machine it includes time the thread waited for a core; the main thread's CPU
 * does not. With STATEMENTS=1 the window's part also lists its statements by text: how many, and
 * PGlite's time for them (a text prepared anew shows as "(prepare)"). For a CPU profile:
 * `node --cpu-prof --import tsx bench/perf/TestKitWalk.ts`. CPS sets the voice number's dials per
 * second (1 unless given): at 1 every dial is an instant and a pass of its own; at 100 a pass claims
 * and dials up to 100 at once and the statements carry batches, as in the end-to-end bench.
 */
import { PGlite } from "@electric-sql/pglite"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import * as Settle from "@voiceagent/runner/Testing/Settle"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { VirtualClock } from "@voiceagent/runner/Testing/VirtualClock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as fs from "node:fs"
import { answeredNumbers } from "../lib/Api.js"

const contacts = Number(process.env["CONTACTS"] ?? 600)
/** Dials per second of the voice number (the kit's default, the carriers' usual: 1). */
const callsPerSecond = Number(process.env["CPS"] ?? 1)

// counters: PGlite's own time and statements, turns of the event loop, instants the clock stopped at
const counters = { pgliteMs: 0, statements: 0, turns: 0, instants: 0 }
// per statement text (STATEMENTS=1): calls and PGlite's time, read from the protocol messages the
// client sends (`execProtocol`: a Parse names a text, a Bind runs a named one, a Query is a simple one)
const byText = new Map<string, { calls: number; ms: number; texts: Set<string> }>()
const preparedText = new Map<string, string>()
const cstring = (bytes: Uint8Array, at: number) => {
  let end = at
  while (bytes[end] !== 0) end++
  return [Buffer.from(bytes.subarray(at, end)).toString("utf8"), end + 1] as const
}
const statementOf = (bytes: Uint8Array): string => {
  for (let at = 0; at + 5 <= bytes.length;) {
    const type = String.fromCharCode(bytes[at]!)
    const length = new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getInt32(0)
    const body = at + 5
    if (type === "Q") return cstring(bytes, body)[0]
    if (type === "P") {
      const [name, next] = cstring(bytes, body)
      const text = cstring(bytes, next)[0]
      preparedText.set(name, text)
      return `(prepare) ${text}`
    }
    if (type === "B") {
      const [, next] = cstring(bytes, body)
      return preparedText.get(cstring(bytes, next)[0]) ?? "(unknown prepared statement)"
    }
    at += 1 + length
  }
  return "(no statement)"
}
let listing = false
// `execProtocol`: the client's prepared statements; `query`, `exec`: PGlite's own (none calls another of these)
for (const method of ["query", "exec", "execProtocol"] as const) {
  const original = PGlite.prototype[method] as (...args: Array<unknown>) => Promise<unknown>
  ;(PGlite.prototype as Record<typeof method, unknown>)[method] = async function(
    this: PGlite,
    ...args: Array<unknown>
  ) {
    // decoded on every call, so the texts prepared before the listing starts are known by name
    const decoded = method === "execProtocol" ? statementOf(args[0] as Uint8Array) : undefined
    const text = listing ? decoded : undefined
    const t0 = performance.now()
    try {
      return await original.apply(this, args)
    } finally {
      const ms = performance.now() - t0
      counters.pgliteMs += ms
      if (text !== undefined) {
        const key = text.replace(/\s+/g, " ").trim().slice(0, 100)
        const entry = byText.get(key) ?? { calls: 0, ms: 0, texts: new Set<string>() }
        entry.calls++
        entry.ms += ms
        entry.texts.add(text)
        byText.set(key, entry)
      }
    }
  }
}
const originalSetImmediate = globalThis.setImmediate
globalThis.setImmediate = ((...args: Parameters<typeof setImmediate>) => {
  counters.turns++
  return originalSetImmediate(...args)
}) as typeof setImmediate
const originalWakeNext = VirtualClock.prototype.unsafeWakeNext
VirtualClock.prototype.unsafeWakeNext = function(this: VirtualClock, limit: number) {
  const woken = originalWakeNext.call(this, limit)
  if (woken > 0) counters.instants++
  return woken
}
/**
 * The main thread's own CPU time in ms (Linux: its task's utime
 * + stime, in 10 ms ticks); workers (speech synthesis) excluded.
 */
const mainThreadCpu = (): number => {
  try {
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}
const mark = () => ({
  ...counters,
  settles: Settle.stats.settles,
  settleTurns: Settle.stats.turns,
  offClockMillis: Settle.stats.offClockMillis,
  statements: SqlActivity.started(),
  wall: performance.now(),
  cpu: process.cpuUsage(),
  main: mainThreadCpu()
})
const breakdown = (from: ReturnType<typeof mark>, dials?: number) => {
  const to = mark()
  const wall = to.wall - from.wall
  const cpu = (to.cpu.user - from.cpu.user + to.cpu.system - from.cpu.system) / 1000
  const per = (n: number) => dials === undefined ? "" : ` (${(n / dials).toFixed(dials > 0 ? 1 : 0)}/dial)`
  const pglite = to.pgliteMs - from.pgliteMs
  const main = to.main - from.main
  return `  wall ${wall.toFixed(0)} ms${per(wall)}, CPU ${cpu.toFixed(0)} ms (${
    (100 * cpu / wall).toFixed(0)
  } % of wall), of it the main thread ${main.toFixed(0)} ms${per(main)}, other threads ${(cpu - main).toFixed(0)} ms${
    per(cpu - main)
  }; PGlite ${pglite.toFixed(0)} ms${per(pglite)} over ${to.statements - from.statements} statements${
    per(to.statements - from.statements)
  }; main thread beside PGlite ${(main - pglite).toFixed(0)} ms${per(main - pglite)}; turns ${to.turns - from.turns}${
    per(to.turns - from.turns)
  }, of them in settle ${to.settleTurns - from.settleTurns}${per(to.settleTurns - from.settleTurns)} over ${
    to.settles - from.settles
  } settles; settle waiting for speech synthesis ${(to.offClockMillis - from.offClockMillis).toFixed(0)} ms${
    per(to.offClockMillis - from.offClockMillis)
  }; instants ${to.instants - from.instants}${per(to.instants - from.instants)}`
}
const program = Effect.gen(function*() {
  yield* TestKit.startAt("2026-01-05T00:00:00Z")
  const { tenantId, agentId } = yield* TestKit.tenant({ balance: 1_000_000_000 })
  const voiceNumberId = yield* TestKit.voiceNumber(tenantId, "+14155550100")
  const contactListId = yield* TestKit.contactList(tenantId, answeredNumbers(contacts, 0))
  const c = yield* TestKit.campaign(tenantId, {
    name: "p",
    agentId,
    voiceNumberId,
    contactListId,
    maxAttempts: 1,
    maxConcurrentCalls: 100,
    timezone: "America/New_York",
    callWindowStart: "09:00",
    callWindowEnd: "10:00",
    callDays: [1, 2, 3, 4, 5, 6, 7]
  })
  yield* (yield* Campaigns).schedule(tenantId, c.id, null).pipe(Effect.orDie)
  let t = performance.now()
  let m = mark()
  yield* TestKit.advance("13 hours")
  console.log(
    `idle 13 virtual h: ${((performance.now() - t) / 1000).toFixed(2)} s wall, pending sleeps ${
      (yield* TestClock.sleeps()).length
    }`
  )
  console.log(breakdown(m))
  yield* TestKit.advance("1 hour")
  t = performance.now()
  m = mark()
  listing = process.env["STATEMENTS"] === "1"
  yield* TestKit.advanceTo("2026-01-05T14:00:00Z")
  yield* TestKit.advance(`${Math.ceil(contacts / 60) + 1} minutes`)
  const dials = (yield* (yield* TestKit.Dials).all).length
  console.log(
    `window: ${dials} dials in ${((performance.now() - t) / 1000).toFixed(2)} s wall (${
      ((performance.now() - t) / dials).toFixed(1)
    } ms/dial), pending sleeps after ${(yield* TestClock.sleeps()).length}`
  )
  console.log(breakdown(m, dials))
  if (listing) {
    console.log("  statements by text (calls, PGlite ms, ms each, distinct texts):")
    for (const [key, e] of [...byText.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(
        `  ${String(e.calls).padStart(6)} ${e.ms.toFixed(0).padStart(7)} ${(e.ms / e.calls).toFixed(2).padStart(6)} ${
          String(e.texts.size).padStart(5)
        }  ${key}`
      )
    }
  }
})
await Effect.runPromise(
  program.pipe(
    Effect.provide(
      Layer.provideMerge(
        TestKit.layer({ ringMillis: 0, callsPerSecondPerNumber: callsPerSecond }),
        TestContext.TestContext
      )
    ),
    Logger.withMinimumLogLevel(LogLevel.Error)
  )
)
process.exit(0)
