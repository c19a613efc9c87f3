/**
 * The recorder on real frames (the recorded caller fixtures): the WAV file written as it grows and
 * its header's sizes once finished, the two channels interleaved on the stream's clock, the agent's
 * audio cut where the caller barged in, gaps as silence, 16 kHz for web calls, and the media
 * session wrapped for both kinds of adapter (frames as events, frames on the hot path).
 */
import { assert, describe, it } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import { FRAME_SAMPLES, makeInterleaver, makeTimeline, recordMedia } from "@voiceagent/runner/Recordings/CallRecorder"
import { openWavFile, parseWav, WAV_HEADER_BYTES } from "@voiceagent/runner/Recordings/WavFile"
import { callerLine } from "@voiceagent/runner/Testing/FakeCallerLine"
import { concat, frames, mulawEncode } from "@voiceagent/runner/Voice/Audio"
import { type AudioFrame, makeAudioInlet, MediaEvent, type MediaSession } from "@voiceagent/runner/Voice/Media"
import { Effect, Queue, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "recorder-"))

/** The caller's real speech, as 20 ms frames on the stream's clock from `startMs`. */
const callerFrames = (pcm: Int16Array, startMs = 0): Array<Pick<AudioFrame, "pcm" | "at">> =>
  frames(pcm).map((frame, i) => ({ pcm: frame, at: startMs + i * 20 }))

/** Records into memory: the two channels as the timeline writes them. */
const memoryTimeline = () => {
  const left: Array<number> = []
  const right: Array<number> = []
  const timeline = makeTimeline((caller, agent) => {
    assert.strictEqual(caller.length, agent.length)
    left.push(...caller)
    right.push(...agent)
  })
  return { timeline, left, right }
}

const QUESTION = "How much does the premium plan cost?"
const AGENT = "Hello, who is this?"

const energy = (samples: ArrayLike<number>, from: number, to: number) => {
  let sum = 0
  for (let i = from; i < to; i++) sum += samples[i]! * samples[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

describe("WavFile", () => {
  it.effect("a file that cannot be created fails its finish, and nothing waited for it", () =>
    Effect.gen(function*() {
      const blocker = path.join(tempDir(), "file")
      fs.writeFileSync(blocker, "")
      const writer = yield* openWavFile(path.join(blocker, "sub", "call.wav"), 2, 8_000)
      writer.append(new Int16Array(40_000))
      const error = yield* Effect.flip(writer.finish)
      assert.match(error.message, /^could not write .*ENOTDIR/)
    }))

  it.effect("writes a stereo file as it grows, with the header's sizes right after finish", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "call.wav")
      const question = yield* callerLine(QUESTION)
      const answer = yield* callerLine(AGENT)
      // the fixtures said over and over: several of the writer's blocks
      const caller = concat(Array.from({ length: 4 }, () => question))
      const agent = concat(Array.from({ length: 6 }, () => answer))
      const length = Math.min(caller.length, agent.length)
      const writer = yield* openWavFile(file, 2, 8_000)
      const both: Array<Int16Array> = []
      // 20 ms at a time, as a call appends them
      for (let i = 0; i + FRAME_SAMPLES <= length; i += FRAME_SAMPLES) {
        const frame = new Int16Array(2 * FRAME_SAMPLES)
        for (let j = 0; j < FRAME_SAMPLES; j++) {
          frame[2 * j] = caller[i + j]!
          frame[2 * j + 1] = agent[i + j]!
        }
        both.push(frame)
        writer.append(frame)
      }
      const dataBytes = both.length * FRAME_SAMPLES * 4
      assert.isAbove(dataBytes, 3 * 32_768, "more than three blocks")
      const bytes = yield* writer.finish
      assert.strictEqual(bytes, WAV_HEADER_BYTES + dataBytes)
      const written = fs.readFileSync(file)
      assert.strictEqual(written.length, bytes)
      const wav = parseWav(written)!
      assert.deepInclude(wav, {
        channels: 2,
        sampleRate: 8_000,
        declaredDataBytes: dataBytes,
        declaredRiffBytes: 36 + dataBytes
      })
      const frameCount = dataBytes / 4
      assert.deepStrictEqual([...wav.samples[0]!], [...caller.subarray(0, frameCount)])
      assert.deepStrictEqual([...wav.samples[1]!], [...agent.subarray(0, frameCount)])
    }))

  it.effect("a file discarded is gone", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const gone = yield* openWavFile(path.join(dir, "gone.wav"), 2, 8_000)
      gone.append(new Int16Array(40_000))
      // created in the background (nobody waits for the disk): the test's own timeout bounds the wait
      yield* Effect.promise(async () => {
        while (!fs.existsSync(path.join(dir, "gone.wav"))) await new Promise((resolve) => setImmediate(resolve))
      })
      yield* gone.discard
      assert.isFalse(fs.existsSync(path.join(dir, "gone.wav")))
    }))
})

describe("the recording's timeline", () => {
  it("interleaves the caller (left) with the agent's audio (right) where the stream was when it was sent", () => {
    const { left, right, timeline } = memoryTimeline()
    return Effect.runPromise(Effect.gen(function*() {
      const caller = yield* callerLine(QUESTION)
      const agent = yield* callerLine(AGENT)
      // the stream's clock starts at engine time 10_000, frames arrive 40 ms after they are said
      const arrive = (frame: Pick<AudioFrame, "pcm" | "at">) => timeline.caller(frame, 10_040 + frame.at)
      const said = callerFrames(caller)
      for (const frame of said.slice(0, 25)) arrive(frame) // 500 ms
      // the agent speaks at engine time 10_540: 500 ms into the stream
      timeline.played(agent, 10_540)
      for (const frame of said.slice(25)) arrive(frame)
      const total = said.length * FRAME_SAMPLES
      assert.strictEqual(left.length, total)
      assert.deepStrictEqual(left, [...caller.subarray(0, total)])
      // silent before 500 ms, then the agent's audio to the sample
      assert.isTrue(right.slice(0, 4_000).every((s) => s === 0))
      const heard = Math.min(agent.length, total - 4_000)
      assert.deepStrictEqual(right.slice(4_000, 4_000 + heard), [...agent.subarray(0, heard)])
    }))
  })

  it("a barge-in cuts the agent's audio where it was: what was sent and not yet played is not recorded", () =>
    Effect.runPromise(Effect.gen(function*() {
      const { left, right, timeline } = memoryTimeline()
      const caller = yield* callerLine(QUESTION)
      const agent = yield* callerLine(AGENT)
      const at = (streamMs: number) => 20_000 + streamMs
      // 1 s of silence, then the caller's question, then 1 s more
      const padded = new Int16Array(8_000 + caller.length + 8_000)
      padded.set(caller, 8_000)
      const said = callerFrames(padded)
      // 1 s of silence, then the agent's whole answer sent at once (the carrier buffers it)
      for (const frame of said.slice(0, 50)) timeline.caller(frame, at(frame.at))
      timeline.played(agent, at(1_000))
      // the caller speaks over it; the engine clears 300 ms in
      for (const frame of said.slice(50, 65)) timeline.caller(frame, at(frame.at))
      timeline.cleared(at(1_300))
      // a new response after the barge-in plays from where the stream is then
      for (const frame of said.slice(65, 100)) timeline.caller(frame, at(frame.at))
      const after = agent.subarray(0, 800)
      timeline.played(after, at(2_000))
      for (const frame of said.slice(100)) timeline.caller(frame, at(frame.at))
      timeline.end(at(said.length * 20))
      assert.strictEqual(right.length, left.length)
      // 1.0–1.3 s: the agent's first 300 ms; then nothing until the next response at 2.0 s
      assert.deepStrictEqual(right.slice(8_000, 10_400), [...agent.subarray(0, 2_400)])
      assert.isTrue(right.slice(10_400, 16_000).every((s) => s === 0), "nothing after the clear")
      assert.isAbove(energy(agent, 2_400, Math.min(agent.length, 6_400)), 100, "the agent had more to say")
      assert.deepStrictEqual(right.slice(16_000, 16_800), [...after])
      assert.isTrue(right.slice(16_800).every((s) => s === 0))
    })))

  it(
    "a gap in the stream's times is silence on both sides, audio sent ahead plays on; the stream's end writes what " +
      "played",
    () => {
      const { left, right, timeline } = memoryTimeline()
      const tone = Int16Array.from({ length: 4_000 }, (_, i) => Math.round(8_000 * Math.sin(i / 5)))
      const frame = (at: number) => ({ pcm: new Int16Array(FRAME_SAMPLES).fill(1_000), at })
      timeline.caller(frame(0), 1_000)
      timeline.played(tone, 1_020)
      // the line sends nothing for 200 ms (silence suppressed), then one frame
      timeline.caller(frame(220), 1_220)
      assert.strictEqual(left.length, 240 * 8)
      assert.isTrue(left.slice(160, 1_760).every((s) => s === 0))
      assert.deepStrictEqual(right.slice(160, 1_920), [...tone.subarray(0, 1_760)])
      // the stream stops at 400 ms: the tone played until then, no further
      timeline.end(1_400)
      assert.strictEqual(right.length, 400 * 8)
      assert.deepStrictEqual(right.slice(160), [...tone.subarray(0, 400 * 8 - 160)])
      // the first end counts (the conversation's close comes after the stream's)
      timeline.end(3_000)
      timeline.caller(frame(2_000), 3_000)
      assert.deepStrictEqual([left.length, right.length], [400 * 8, 400 * 8])
    }
  )

  it("a line that goes quiet at the end (sends nothing) is recorded to the stream's end, as silence", () => {
    const { left, right, timeline } = memoryTimeline()
    timeline.caller({ pcm: new Int16Array(FRAME_SAMPLES).fill(700), at: 0 }, 5_000)
    timeline.end(7_000)
    assert.deepStrictEqual([left.length, right.length], [2_000 * 8, 2_000 * 8])
    assert.isTrue(left.slice(FRAME_SAMPLES).every((s) => s === 0))
  })

  it(
    "a stream whose frames start late is placed when they came; a stream that comes back goes on after the silence",
    () => {
      const { left, right, timeline } = memoryTimeline()
      const frame = (at: number) => ({ pcm: new Int16Array(FRAME_SAMPLES).fill(900), at })
      const greeting = new Int16Array(4_000).fill(1_500)
      // the stream opens at 50_000 and the greeting plays at once;
      // the client's first frame (its time 0) comes 1 s later
      timeline.restart(50_000)
      timeline.played(greeting, 50_000)
      timeline.caller(frame(0), 51_000)
      timeline.caller(frame(20), 51_020)
      assert.strictEqual(left.length, 1_040 * 8)
      assert.isTrue(left.slice(0, 8_000).every((s) => s === 0))
      assert.isTrue(left.slice(8_000).every((s) => s === 900))
      assert.deepStrictEqual(right.slice(0, 4_000), [...greeting])
      assert.isTrue(right.slice(4_000).every((s) => s === 0))
      // the line drops at 51_040 and a new stream (its clock from 0 again) starts 2 s later
      timeline.end(51_040)
      timeline.restart(53_040)
      timeline.caller(frame(0), 53_040)
      assert.strictEqual(left.length, 3_060 * 8)
      assert.isTrue(left.slice(1_040 * 8, 3_040 * 8).every((s) => s === 0))
      assert.isTrue(left.slice(3_040 * 8).every((s) => s === 900))
    }
  )

  it("a web call's recording is 16 kHz: each channel's rate doubled", () => {
    const out: Array<Int16Array> = []
    const interleave = makeInterleaver(16_000, (both) => out.push(both))
    interleave(new Int16Array(FRAME_SAMPLES).fill(4_000), new Int16Array(FRAME_SAMPLES))
    interleave(new Int16Array(FRAME_SAMPLES).fill(4_000), new Int16Array(FRAME_SAMPLES))
    assert.deepStrictEqual(out.map((o) => o.length), [4 * FRAME_SAMPLES, 4 * FRAME_SAMPLES])
    const second = out[1]!
    for (let i = 0; i < 2 * FRAME_SAMPLES; i++) {
      assert.approximately(second[2 * i]!, 4_000, 40)
      assert.strictEqual(second[2 * i + 1], 0)
    }
  })
})

/** A media session whose frames come as events (as a web call's do) or on the hot path (as Twilio's do). */
const fakeMedia = (mode: "events" | "listen") =>
  Effect.gen(function*() {
    const events = yield* Queue.unbounded<MediaEvent>()
    const inlet = makeAudioInlet()
    const sent: Array<string> = []
    const media: MediaSession = {
      sessionId: "00000000-0000-0000-0000-000000000001" as SessionId,
      streamId: "test",
      events,
      listen: mode === "listen" ? inlet.listen : undefined,
      play: (pcm) => Effect.sync(() => void sent.push(`play ${pcm.length}`)),
      mark: (name) => Effect.sync(() => void sent.push(`mark ${name}`)),
      clear: Effect.sync(() => void sent.push("clear")),
      close: Effect.void
    }
    const frame = (pcm: Int16Array, at: number) =>
      mode === "events"
        ? Queue.offer(events, MediaEvent.Audio({ mulaw: mulawEncode(pcm), pcm, at }))
        : Effect.sync(() => inlet.push({ mulaw: mulawEncode(pcm), pcm, at }))
    return { media, frame, sent, events }
  })

describe("recordMedia", () => {
  for (const mode of ["events", "listen"] as const) {
    it.scoped(
      `records a stream whose frames come ${
        mode === "events" ? "as events" : "on the hot path"
      }, passing everything on`,
      () =>
        Effect.gen(function*() {
          const { left, right, timeline } = memoryTimeline()
          const fake = yield* fakeMedia(mode)
          const wrapped = yield* recordMedia(fake.media, timeline)
          const heard: Array<number> = []
          wrapped.listen?.((frame) => void heard.push(frame.at))
          const caller = (yield* callerLine(QUESTION)).subarray(0, 50 * FRAME_SAMPLES)
          const agent = new Int16Array(1_600).fill(2_000)
          for (const [i, pcm] of frames(caller).entries()) {
            if (i === 10) {
              yield* wrapped.play(agent)
              yield* wrapped.mark("r1:1")
            }
            if (i === 15) yield* wrapped.clear
            yield* fake.frame(pcm, i * 20)
            yield* TestClock.adjust("20 millis")
          }
          yield* Queue.offer(fake.events, MediaEvent.Stopped({ at: 1_000, reason: "test" }))
          // the engine's side: events (audio included, from an event adapter) come through in order
          const taken: Array<string> = []
          for (;;) {
            const event = yield* Queue.take(wrapped.events)
            if (event._tag === "Audio") heard.push(event.at)
            taken.push(event._tag)
            if (event._tag === "Stopped") break
          }
          assert.deepStrictEqual(heard, Array.from({ length: 50 }, (_, i) => i * 20))
          assert.deepStrictEqual(fake.sent, ["play 1600", "mark r1:1", "clear"])
          assert.strictEqual(taken.at(-1), "Stopped")
          assert.deepStrictEqual(left, [...caller])
          // the agent's audio from where it was sent (frame 10, or 9 ms on for frames that arrive late) to the clear
          const start = right.findIndex((s) => s !== 0)
          let end = right.length
          while (end > 0 && right[end - 1] === 0) end--
          assert.approximately(start, 10 * FRAME_SAMPLES, FRAME_SAMPLES)
          assert.approximately(end - start, 5 * FRAME_SAMPLES, FRAME_SAMPLES)
        })
    )
  }
})
