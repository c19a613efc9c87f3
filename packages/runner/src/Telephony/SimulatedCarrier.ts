/**
 * The simulated carrier: the embedded default and the test double, driven entirely by Effect's
 * `Clock` (so `TestClock` moves calls along). What happens is decided by the destination number's
 * last four digits:
 *
 * | last digits | what happens |
 * |---|---|
 * | `9001` | rings, then busy |
 * | `9002` | rings and is never answered (the call ends at its ring timeout) |
 * | `9003` | rings, then the carrier reports a failure |
 * | `9004` | the carrier refuses to place the call |
 * | anything else | answered after the ring time; talks for the last three digits in seconds (`…0042`: 42 s) |
 *
 * The ring time is `ringMillis` (`SIMULATOR_RING_MS`, default 2 s). An answered call is a real
 * conversation: the callee is a scripted caller (`SimulatedCaller`) on an in-process media line,
 * speaking recorded lines into the call's conversation engine, which hears it with its voice
 * detector, answers with the agent's language model and voice, and is interrupted, reminded and hung
 * up on as on a phone. The callee follows the call's `metadata.simulatedCaller` script (or
 * `simulatedCallerLines`) and then stays on the line in silence; with no script it keeps the
 * conversation going. Either way it hangs up when its talk time is over. The simulated line knows
 * the caller's words, so it stands in for the speech-to-text provider.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type ProviderEventKind, SessionId } from "@voiceagent/domain/Calls"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import {
  CallEventSink,
  type Carrier,
  type CarrierCallStatus,
  DialRefused,
  TransferRefused
} from "../Ports/Telephony.js"
import { TimerWheel } from "../Shared/TimerWheel.js"
import * as GroupCommit from "../Sql/GroupCommit.js"
import * as Rows from "../Sql/Rows.js"
import { callerVoice } from "../Voice/CallerVoice.js"
import { LocalMedia } from "../Voice/Media.js"
import { CallerStep, engagedScript, type SimulatedCaller, startCaller } from "../Voice/SimulatedCaller.js"

export interface SimulatorOptions {
  readonly ringMillis: number
  /** Called for every dial the simulator accepts (tests count dials with it). */
  readonly onDial?:
    | ((dial: { readonly sessionId: string; readonly to: string; readonly at: number }) => void)
    | undefined
}

export type SimulatedBehaviour =
  | { readonly _tag: "Busy" }
  | { readonly _tag: "NoAnswer" }
  | { readonly _tag: "Failed" }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Answered"; readonly talkSeconds: number }

export const behaviourOf = (toNumber: string): SimulatedBehaviour => {
  const last4 = toNumber.slice(-4)
  switch (last4) {
    case "9001":
      return { _tag: "Busy" }
    case "9002":
      return { _tag: "NoAnswer" }
    case "9003":
      return { _tag: "Failed" }
    case "9004":
      return { _tag: "Refused" }
    default:
      return { _tag: "Answered", talkSeconds: Number(toNumber.slice(-3)) || 0 }
  }
}

/** A script as stored (JSON of its steps), back as steps; `undefined` when none was stored. */
const reviveScript = (stored: unknown): ReadonlyArray<CallerStep> | undefined =>
  Array.isArray(stored)
    ? stored.flatMap((step: { readonly _tag?: unknown }): ReadonlyArray<CallerStep> => {
      switch (step._tag) {
        case "Say":
          return [CallerStep.Say(step as Extract<CallerStep, { _tag: "Say" }>)]
        case "Interrupt":
          return [CallerStep.Interrupt(step as Extract<CallerStep, { _tag: "Interrupt" }>)]
        case "Noise":
          return [CallerStep.Noise(step as Extract<CallerStep, { _tag: "Noise" }>)]
        case "Pause":
          return [CallerStep.Pause(step as Extract<CallerStep, { _tag: "Pause" }>)]
        case "Silent":
          return [CallerStep.Silent(step as Extract<CallerStep, { _tag: "Silent" }>)]
        case "HangUp":
          return [CallerStep.HangUp()]
        default:
          return []
      }
    })
    : undefined

/** A row of `simulated_calls` as `recordOf` reads it (`caller_script`: jsonb, revived by `reviveScript`). */
const SimulatedCallRow = Schema.Struct({
  sessionId: SessionId,
  toNumber: Schema.String,
  dialedAt: Schema.DateFromSelf,
  ringMs: Schema.Int,
  hungUpAt: Schema.NullOr(Schema.DateFromSelf),
  callerScript: Schema.Unknown
})

/** A row of `simulated_calls` as the dial writes it. */
interface RecordRow {
  readonly provider_call_id: string
  readonly session_id: string
  readonly to_number: string
  readonly dialed_at: string
  readonly ring_ms: number
  readonly caller_script: ReadonlyArray<CallerStep> | null
}

/** A call whose line events this process reports. */
interface Driven {
  /** The index in its timeline of the event to report next. */
  next: number
  /** The scripted callee on the line, from the answer until the end. */
  callee: { readonly caller: SimulatedCaller; readonly scope: Scope.CloseableScope } | undefined
}

/** The simulator's record of a call: with the ring time, everything that happens on the line follows from it. */
export interface SimulatedCallRecord {
  readonly toNumber: string
  readonly dialedAt: number
  readonly ringMs: number
  /** When our side hung up, if it did. */
  readonly hungUpAt: number | null
}

/** The line's events, with the carrier's times, of a call placed as `record` says. */
export const timelineOf = (
  record: SimulatedCallRecord
): ReadonlyArray<{ readonly kind: ProviderEventKind; readonly at: number }> => {
  const behaviour = behaviourOf(record.toNumber)
  const ringingAt = record.dialedAt + record.ringMs / 2
  const decidedAt = record.dialedAt + record.ringMs
  const hungUp = record.hungUpAt ?? Infinity
  const events: Array<{ kind: ProviderEventKind; at: number }> = []
  if (ringingAt > hungUp) return [{ kind: "no_answer", at: hungUp }]
  events.push({ kind: "ringing", at: ringingAt })
  if (decidedAt > hungUp) return [...events, { kind: "no_answer", at: hungUp }]
  switch (behaviour._tag) {
    case "Busy":
      return [...events, { kind: "busy", at: decidedAt }]
    case "Failed":
    case "Refused":
      return [...events, { kind: "failed", at: decidedAt }]
    case "NoAnswer":
      return record.hungUpAt === null ? events : [...events, { kind: "no_answer", at: hungUp }]
    case "Answered": {
      const endedAt = Math.min(decidedAt + behaviour.talkSeconds * 1000, hungUp)
      return [...events, { kind: "answered", at: decidedAt }, { kind: "completed", at: endedAt }]
    }
  }
}

/** Where a call stands at `now` by its record (see `timelineOf`). */
export const statusAt = (record: SimulatedCallRecord, now: number): CarrierCallStatus => {
  const happened = timelineOf(record).filter((e) => e.at <= now)
  const last = happened.at(-1)
  const answered = happened.find((e) => e.kind === "answered")
  return {
    phase: last?.kind ?? "dialing",
    ...(answered === undefined ? {} : { answeredAt: answered.at }),
    ...(last !== undefined && last.kind !== "ringing" && last.kind !== "answered" ? { endedAt: last.at } : {})
  }
}

/**
 * The simulated carrier. Its record of every call it places is a row (`simulated_calls`), like a
 * real carrier's: any runner answers `status` for a call whose dialing runner died, with the times
 * the line's events happened at, and takes over reporting the events still to come. The conversation
 * is reported with the answer and again with the end, so a call that changes runner keeps it.
 */
export const makeSimulatedCarrier = (options: SimulatorOptions) =>
  Effect.gen(function*() {
    const sink = yield* CallEventSink
    const local = yield* LocalMedia
    const voice = yield* callerVoice
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    const wheel = yield* TimerWheel
    /** The carrier's records of the calls dialled at the same time, written in one statement. */
    const records = yield* GroupCommit.make("simulated carrier", (rows: ReadonlyArray<RecordRow>) =>
      sql`
        INSERT INTO simulated_calls (provider_call_id, session_id, to_number, dialed_at, ring_ms, caller_script)
        SELECT provider_call_id, session_id, to_number, dialed_at, ring_ms, caller_script
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS x(provider_call_id text, session_id uuid, to_number text, dialed_at timestamptz, ring_ms int,
            caller_script jsonb)
      `)
    /** The calls whose events this process reports: the next event's index, and the callee once answered. */
    const driving = new Map<string, Driven>()
    let counter = 0

    const recordOf = (providerCallId: string) =>
      Rows.findOne(
        SimulatedCallRow,
        sql`
        SELECT session_id, to_number, dialed_at, ring_ms, hung_up_at, caller_script FROM simulated_calls
        WHERE provider_call_id = ${providerCallId}
      `
      ).pipe(
        Effect.map((row) =>
          Option.map(row, (r) => ({
            sessionId: r.sessionId,
            script: reviveScript(r.callerScript),
            record: {
              toNumber: r.toNumber,
              dialedAt: r.dialedAt.getTime(),
              ringMs: r.ringMs,
              hungUpAt: r.hungUpAt === null ? null : r.hungUpAt.getTime()
            } satisfies SimulatedCallRecord
          }))
        ),
        Effect.orDie
      )

    /** The callee picks up: a scripted caller on an in-process line, handed to the call's conversation. */
    const pickUp = (sessionId: SessionId, script: ReadonlyArray<CallerStep>) =>
      Effect.gen(function*() {
        const caller = yield* startCaller({ sessionId, script, voice, suppressSilence: true })
        if (!(yield* local.attach(caller.media))) {
          yield* Effect.logDebug("simulated call answered: its conversation does not run in this process")
        }
        return caller
      })

    /** Stops reporting a call's events: its next one is disarmed, its callee (if on the line) leaves. */
    const stopDriving = (providerCallId: string) =>
      Effect.suspend(() => {
        const driven = driving.get(providerCallId)
        if (driven === undefined) return Effect.void
        driving.delete(providerCallId)
        return wheel.cancel(`simulated:${providerCallId}`, "line").pipe(
          Effect.zipRight(driven.callee === undefined ? Effect.void : Scope.close(driven.callee.scope, Exit.void))
        )
      })

    /**
     * Reports the events of `record`, each at its time: those past at once (a process taking a call
     * over reports them again; the call applies each once), those to come when they are due. The
     * callee's line opens with the answer (on a call taken over, now) and closes before the end.
     *
     * A call waits for its next event as an entry of the runner's `TimerWheel`, not as a sleeping
     * fiber: each event, reported, arms the next.
     */
    const drive = (
      providerCallId: string,
      sessionId: SessionId,
      record: SimulatedCallRecord,
      script: ReadonlyArray<CallerStep>
    ) =>
      Effect.suspend(() => {
        if (driving.has(providerCallId)) return Effect.void
        const timeline = timelineOf(record)
        const answeredAt = timeline.find((e) => e.kind === "answered")?.at
        const endedAt = timeline.find((e) => e.kind === "completed")?.at
        const driven: Driven = { next: 0, callee: undefined }
        driving.set(providerCallId, driven)
        const current = () => driving.get(providerCallId) === driven
        const armNext: Effect.Effect<void> = Effect.suspend(() => {
          const event = timeline[driven.next]
          if (event === undefined) {
            driving.delete(providerCallId)
            return Effect.void
          }
          return wheel.arm(`simulated:${providerCallId}`, "line", event.at, report(event), scope)
        })
        const report = (event: (typeof timeline)[number]): Effect.Effect<void> =>
          Effect.gen(function*() {
            if (!current()) return
            const callee = driven.callee
            if (event.kind === "completed" && callee !== undefined) {
              driven.callee = undefined
              yield* callee.caller.hangUp("the callee hung up")
              yield* Scope.close(callee.scope, Exit.void)
            }
            yield* sink.report(sessionId, {
              eventId: `${providerCallId}:${event.kind}`,
              kind: event.kind,
              providerCallId,
              at: event.at
            })
            if (!current()) return
            // a call with no talk time ends as it is answered: nobody speaks
            if (event.kind === "answered" && answeredAt !== endedAt) {
              const calleeScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
              driven.callee = {
                caller: yield* pickUp(sessionId, script).pipe(Scope.extend(calleeScope)),
                scope: calleeScope
              }
            }
            driven.next++
            yield* armNext
          }).pipe(Effect.onInterrupt(() => stopDriving(providerCallId)))
        return armNext
      })

    /** The line is over for the platform: its events stop, and its record says when. */
    const release = (providerCallId: string) =>
      Effect.gen(function*() {
        yield* stopDriving(providerCallId)
        const at = yield* Clock.currentTimeMillis
        yield* sql`
          UPDATE simulated_calls SET hung_up_at = ${new Date(
          at
        )} WHERE provider_call_id = ${providerCallId} AND hung_up_at IS NULL
        `.pipe(Effect.orDie)
      })

    const carrier: Carrier = {
      name: "simulated",
      dial: (request) =>
        Effect.gen(function*() {
          const behaviour = behaviourOf(request.to)
          if (behaviour._tag === "Refused") return yield* new DialRefused({ reason: "the carrier refused the number" })
          const providerCallId = `sim-${request.sessionId}-${++counter}`
          const dialedAt = yield* Clock.currentTimeMillis
          const record: SimulatedCallRecord = {
            toNumber: request.to,
            dialedAt,
            ringMs: options.ringMillis,
            hungUpAt: null
          }
          // the callee's script is part of the carrier's record: a runner taking the call over follows it too
          const script = request.callerScript ??
            (behaviour._tag === "Answered" ? engagedScript(behaviour.talkSeconds) : [])
          yield* records.submit({
            provider_call_id: providerCallId,
            session_id: request.sessionId,
            to_number: request.to,
            dialed_at: new Date(dialedAt).toISOString(),
            ring_ms: options.ringMillis,
            caller_script: request.callerScript === undefined ? null : script
          })
          options.onDial?.({ sessionId: request.sessionId, to: request.to, at: dialedAt })
          yield* drive(providerCallId, request.sessionId, record, script)
          return { providerCallId }
        }),
      hangup: (providerCallId) => release(providerCallId),
      callOf: (sessionId) =>
        Rows.findOne(
          Schema.Struct({ providerCallId: Schema.String }),
          sql`
          SELECT provider_call_id FROM simulated_calls WHERE session_id = ${sessionId} ORDER BY dialed_at DESC LIMIT 1
        `
        ).pipe(Effect.map(Option.map((r) => r.providerCallId)), Effect.orDie),
      // the callee is handed to the number (which the simulator does not ring): for the platform the line
      // ends as on a hang-up; a number the simulator refuses to dial (…9004) is refused here too
      transfer: (providerCallId, request) =>
        behaviourOf(request.to)._tag === "Refused"
          ? Effect.fail(new TransferRefused({ reason: "the carrier refused the number" }))
          : release(providerCallId),
      status: (providerCallId) =>
        Effect.gen(function*() {
          const found = yield* recordOf(providerCallId)
          if (Option.isNone(found)) return Option.none()
          const { record, script, sessionId } = found.value
          const now = yield* Clock.currentTimeMillis
          // the process that dialed may be gone: the call's events are reported from here
          if (!driving.has(providerCallId)) {
            const behaviour = behaviourOf(record.toNumber)
            yield* drive(
              providerCallId,
              sessionId,
              record,
              script ?? (behaviour._tag === "Answered" ? engagedScript(behaviour.talkSeconds) : [])
            )
          }
          return Option.some(statusAt(record, now))
        })
    }
    return carrier
  })
