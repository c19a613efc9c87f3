/**
 * A callee's audio for voicemail tests, from the recorded caller fixtures: an answering machine's
 * greeting and beep (as the simulated machine plays it, `machineAudio`), and a person who says
 * "Hello?" and waits.
 */
import type * as Effect from "effect/Effect"
import { beepTone, machineAudio, silencePcm } from "../Voice/SimulatedCaller.js"
import { callerLine } from "./FakeCallerLine.js"

export const silence = silencePcm
export const tone = beepTone

/** The machine's greeting alone (no beep). */
export const machineGreeting = (gapMs = 150): Effect.Effect<Int16Array> =>
  machineAudio(callerLine, { beepMs: 0, gapMs })

/** The greeting, a short pause, the beep. */
export const machineWithBeep = (beepMs = 500, hz = 1_000): Effect.Effect<Int16Array> =>
  machineAudio(callerLine, { beepMs, hz })

/** A person answering: "Hello?", then waiting for the caller. */
export const personHello: Effect.Effect<Int16Array> = callerLine("Hello.")
