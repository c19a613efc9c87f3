/**
 * Renders the simulated caller's recorded lines: `npm run render:caller-fixtures`.
 *
 * Each line of `CALLER_LINES` (the simulated carrier's default callee and the conversation tests'
 * callers) is spoken by Flite's `slt` voice (CMU Flite, BSD-style licence, the same WebAssembly build
 * the platform ships; nothing GPL) and written as an 8 kHz 16-bit mono WAV under
 * `packages/runner/fixtures/caller/`, named by `fixtureName`. The files are committed: tests and the
 * simulated carrier read them instead of synthesising at run time, so a caller sounds the same on
 * every machine and run. Lines with no file are synthesised at run time with the same voice.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { writeWav } from "../src/Voice/Audio.js"
import { CALLER_FIXTURES, CALLER_VOICE, fixtureName, speechOf } from "../src/Voice/CallerVoice.js"
import * as FliteTts from "../src/Voice/FliteTts.js"
import { ENGAGED_LINES } from "../src/Voice/SimulatedCaller.js"

/** Every line a committed test or the default callee says. */
export const CALLER_LINES: ReadonlyArray<string> = [
  ...ENGAGED_LINES,
  "When are you open on Saturdays?",
  "How much does the premium plan cost?",
  "Wait, stop. What was the price again?",
  "Sorry, can you repeat that?",
  "uh-huh",
  "okay",
  "My number is four one five,",
  "five five five, two six seven one.",
  "That's all I needed, goodbye.",
  "Do you deliver on Sundays?",
  "Yes, I'm still here.",
  "Hello, who is this?"
]

const program = Effect.gen(function*() {
  const flite = yield* FliteTts.make({ wordTimings: false })
  const session = yield* flite.open({ voice: CALLER_VOICE })
  fs.mkdirSync(CALLER_FIXTURES, { recursive: true })
  for (const line of CALLER_LINES) {
    const pcm = yield* speechOf(session, line)
    const file = path.join(CALLER_FIXTURES, fixtureName(line))
    fs.writeFileSync(file, writeWav(pcm))
    yield* Effect.log(`${fixtureName(line)}: ${(pcm.length / 8).toFixed(0)} ms`)
  }
}).pipe(Effect.scoped)

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
