/**
 * The simulated caller's voice: recorded lines from the repository's fixtures
 * (`packages/runner/fixtures/caller/<slug>.wav`, 8 kHz mono, rendered once by
 * `npm run render:caller-fixtures` with Flite's `slt` voice: a woman's voice, unlike the agent's
 * default `kal`), and for a line with no fixture, Flite at run time (cached per process). Without
 * Flite, a voiced tone as long as the words: a voice detector still hears speech.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { tracked } from "../Observability/OffClockWork.js"
import { concat, readWav, resampleTo8k, SAMPLE_RATE } from "./Audio.js"
import type { CallerVoice } from "./SimulatedCaller.js"
import type { TtsSession } from "./TextToSpeech.js"
import { VoiceProviders } from "./VoiceProviders.js"

export const CALLER_FIXTURES = fileURLToPath(new URL("../../fixtures/caller/", import.meta.url))

/** The voice the simulated caller speaks with (Flite's). */
export const CALLER_VOICE = "slt"

/** A fixture's file name for a line: lower case, letters and digits, dashes. */
export const fixtureName = (text: string): string =>
  `${text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80) || "noise"}.wav`

/** A voiced sound (a 140 Hz buzz with harmonics), 60 ms a character: speech enough for a voice detector. */
export const voicedTone = (text: string, hz = 140): Int16Array => {
  const pcm = new Int16Array(Math.round((SAMPLE_RATE * 60 * Math.max(1, text.length)) / 1_000))
  for (let i = 0; i < pcm.length; i++) {
    let v = 0
    for (let h = 1; h <= 8; h++) v += Math.sin((2 * Math.PI * hz * h * i) / SAMPLE_RATE) / h
    pcm[i] = Math.round(5_000 * v)
  }
  return pcm
}

const fixtures = new Map<string, Int16Array | null>()

/** The fixture for `text`, if the repository has one. */
export const fixtureFor = (text: string, directory = CALLER_FIXTURES): Effect.Effect<Option.Option<Int16Array>> =>
  Effect.suspend(() => {
    const file = path.join(directory, fixtureName(text))
    const known = fixtures.get(file)
    if (known !== undefined) return Effect.succeed(Option.fromNullable(known))
    if (!fs.existsSync(file)) {
      fixtures.set(file, null)
      return Effect.succeed(Option.none())
    }
    const wav = readWav(new Uint8Array(fs.readFileSync(file)))
    if (wav === undefined) return Effect.succeed(Option.none())
    return Effect.map(
      wav.sampleRate === SAMPLE_RATE ? Effect.succeed(wav.pcm) : resampleTo8k(wav.pcm, wav.sampleRate),
      (pcm) => {
        fixtures.set(file, pcm)
        return Option.some(pcm)
      }
    )
  })

/** All of `text`'s speech from `session`. */
export const speechOf = (session: TtsSession, text: string) =>
  Stream.runFold(session.synthesize(text), [] as Array<Int16Array>, (all, part) => {
    if (part._tag === "Audio") all.push(part.pcm)
    return all
  }).pipe(Effect.map(concat))

/** The caller's voice: fixtures, then Flite's `slt`, then a voiced tone. */
export const callerVoice: Effect.Effect<CallerVoice, never, Scope.Scope> = Effect.gen(function*() {
  const providers = yield* Effect.serviceOption(VoiceProviders)
  const flite = Option.flatMap(providers, (p) => Option.fromNullable(p.textToSpeech.get("flite")))
  const session = Option.isNone(flite)
    ? Option.none<TtsSession>()
    : yield* Effect.option(flite.value.open({ voice: CALLER_VOICE }))
  const spoken = new Map<string, Int16Array>()
  return (text: string) =>
    Effect.gen(function*() {
      const fixture = yield* fixtureFor(text)
      if (Option.isSome(fixture)) return fixture.value
      const known = spoken.get(text)
      if (known !== undefined) return known
      const pcm = Option.isNone(session)
        ? voicedTone(text)
        : yield* tracked(speechOf(session.value, text)).pipe(Effect.orElseSucceed(() => voicedTone(text)))
      if (spoken.size < 256) spoken.set(text, pcm)
      return pcm
    })
})
