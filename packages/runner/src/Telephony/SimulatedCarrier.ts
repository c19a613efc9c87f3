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
 * The ring time is `ringMillis` (`SIMULATOR_RING_MS`, default 2 s). An answered call produces a
 * transcript from the agent's greeting and its brain's replies to a scripted caller.
 */
import type { ProviderEvent, ProviderEventKind } from "@voiceagent/domain/Calls"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { AgentBrain, type Turn } from "../Brain/AgentBrain.js"
import { type Carrier, CallEventSink, DialRefused } from "./Telephony.js"

export interface SimulatorOptions {
  readonly ringMillis: number
  /** Called for every dial the simulator accepts (tests count dials with it). */
  readonly onDial?: ((dial: { readonly sessionId: string; readonly to: string; readonly at: number }) => void) | undefined
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

const CALLER_LINES = ["Hello?", "Who is calling, please?", "Can you tell me a bit more?", "Okay, thank you. Goodbye."]

/** A seconds-spaced conversation that fits in the talk time. */
const converse = (
  brain: AgentBrain["Type"],
  agent: Parameters<AgentBrain["Type"]["greet"]>[0],
  answeredAt: number,
  talkSeconds: number,
  callerLines: ReadonlyArray<string> = CALLER_LINES
) =>
  Effect.gen(function*() {
    const lines: Array<Turn & { at: number }> = [{ speaker: "agent", text: yield* brain.greet(agent), at: answeredAt }]
    let second = 4
    for (const callerLine of callerLines) {
      if (second > talkSeconds) break
      lines.push({ speaker: "customer", text: callerLine, at: answeredAt + second * 1000 })
      const reply = yield* brain.reply(agent, lines, callerLine)
      if (second + 2 <= talkSeconds) lines.push({ speaker: "agent", text: reply, at: answeredAt + (second + 2) * 1000 })
      second += 8
    }
    return lines
  })

export const makeSimulatedCarrier = (options: SimulatorOptions) =>
  Effect.gen(function*() {
    const sink = yield* CallEventSink
    const brain = yield* AgentBrain
    const scope = yield* Effect.scope
    const calls = new Map<string, { phase: ProviderEventKind | "dialing"; fiber: Fiber.RuntimeFiber<void> | undefined }>()
    let counter = 0

    const carrier: Carrier = {
      name: "simulated",
      dial: (request) =>
        Effect.gen(function*() {
          const behaviour = behaviourOf(request.to)
          if (behaviour._tag === "Refused") return yield* new DialRefused({ reason: "the carrier refused the number" })
          const providerCallId = `sim-${request.sessionId}-${++counter}`
          options.onDial?.({ sessionId: request.sessionId, to: request.to, at: yield* Clock.currentTimeMillis })
          const entry: { phase: ProviderEventKind | "dialing"; fiber: Fiber.RuntimeFiber<void> | undefined } = {
            phase: "dialing",
            fiber: undefined
          }
          calls.set(providerCallId, entry)
          const report = (kind: ProviderEventKind, extra: Partial<ProviderEvent> = {}) =>
            Effect.gen(function*() {
              entry.phase = kind
              const at = extra.at ?? (yield* Clock.currentTimeMillis)
              yield* sink.report(request.sessionId, { eventId: `${providerCallId}:${kind}`, kind, providerCallId, ...extra, at })
            })
          const script = Effect.gen(function*() {
            yield* Effect.sleep(options.ringMillis / 2)
            yield* report("ringing")
            yield* Effect.sleep(options.ringMillis / 2)
            switch (behaviour._tag) {
              case "Busy":
                return yield* report("busy")
              case "Failed":
                return yield* report("failed")
              case "NoAnswer":
                return yield* Effect.never
              case "Answered": {
                const answeredAt = yield* Clock.currentTimeMillis
                // the whole conversation is known at answer; the call keeps what was said before it ended
                const transcript = yield* converse(brain, request.agent, answeredAt, behaviour.talkSeconds, request.callerLines)
                yield* report("answered", { transcript, at: answeredAt })
                yield* Effect.sleep(behaviour.talkSeconds * 1000)
                // like a carrier's own timestamps: the call ended when the talk time was up
                return yield* report("completed", { at: answeredAt + behaviour.talkSeconds * 1000 })
              }
            }
          }).pipe(Effect.ensuring(Effect.sync(() => calls.delete(providerCallId))))
          entry.fiber = yield* Effect.forkIn(script, scope)
          return { providerCallId }
        }),
      hangup: (providerCallId) =>
        Effect.suspend(() => {
          const call = calls.get(providerCallId)
          calls.delete(providerCallId)
          return call?.fiber === undefined ? Effect.void : Fiber.interrupt(call.fiber).pipe(Effect.asVoid)
        }),
      status: (providerCallId) => Effect.sync(() => Option.map(Option.fromNullable(calls.get(providerCallId)), (c) => c.phase))
    }
    return carrier
  })

