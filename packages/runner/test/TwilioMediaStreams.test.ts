/**
 * The Twilio media path at the runner: the media server on a free loopback port, the `LocalMedia`
 * registry and a call's conversation behind it (the offline responder, the built-in voice), Twilio
 * played by `FakeTwilioMedia` over a real socket. A bad stream is closed (1008, with a reason of at
 * most 123 bytes), reaches no call (or, once accepted, ends it with that reason), and the server
 * goes on serving. The start timeout and the token's expiry are read from Effect's Clock: the
 * TestClock moves them.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import type { EngineReport } from "@voiceagent/runner/Voice/Engine"
import { signMediaToken } from "@voiceagent/runner/Voice/Media"
import { MediaServer, TOKEN_LIFETIME_MS } from "@voiceagent/runner/Voice/MediaServer"
import { closeReason, START_TIMEOUT_MS } from "@voiceagent/runner/Voice/TwilioMedia"
import { Effect, Redacted, TestClock } from "effect"
import * as crypto from "node:crypto"
import { type Call, call, MediaLayer } from "./MediaCall.js"

const open = (route: Call["route"], options: { readonly start?: boolean; readonly token?: string } = {}) =>
  FakeTwilioMedia.connect({
    url: route.streamUrl,
    parameters: { token: options.token ?? route.token },
    start: options.start ?? true
  })

const closeOf = (stream: FakeTwilioMedia.FakeTwilioMediaStream) =>
  Effect.map(stream.until("the socket to close", () => stream.closed() !== undefined), () => stream.closed()!)

/** Closed by the server for a policy violation, saying why in a reason a close frame can carry. */
const assertRefused = (closed: { readonly code: number; readonly reason: string }, reason: string | RegExp) => {
  assert.strictEqual(closed.code, 1008, JSON.stringify(closed))
  if (typeof reason === "string") assert.strictEqual(closed.reason, reason)
  else assert.match(closed.reason, reason)
  assert.isAtMost(Buffer.byteLength(closed.reason, "utf8"), 123)
}

const startMessage = (
  fields: { readonly streamSid?: unknown; readonly token?: unknown; readonly mediaFormat?: unknown }
) =>
  JSON.stringify({
    event: "start",
    sequenceNumber: "1",
    start: {
      accountSid: "AC00000000000000000000000000000001",
      streamSid: fields.streamSid,
      callSid: "CA00000000000000000000000000000001",
      tracks: ["inbound"],
      customParameters: fields.token === undefined ? {} : { token: fields.token },
      ...("mediaFormat" in fields
        ? { mediaFormat: fields.mediaFormat }
        : { mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 } })
    },
    streamSid: fields.streamSid
  })

const mediaMessage = (streamSid: string, payload: string) =>
  JSON.stringify({
    event: "media",
    sequenceNumber: "2",
    media: { track: "inbound", chunk: "1", timestamp: "0", payload },
    streamSid
  })

const connected = (c: Call, what = "the media connected") =>
  c.until(what, () => c.reports.some((r) => r._tag === "MediaConnected"))

describe("Twilio media streams at the runner", () => {
  it("a close reason is cut to 123 bytes of UTF-8 between characters", () => {
    assert.strictEqual(closeReason("token expired"), "token expired")
    // 7 bytes, then four a character: 29 of them fill the 123 bytes, the 30th does not fit
    assert.strictEqual(closeReason(`reason ${"🙂".repeat(40)}`), `reason ${"🙂".repeat(29)}`)
    assert.strictEqual(closeReason(`${"a".repeat(122)}語`), "a".repeat(122))
  })

  layer(MediaLayer, { timeout: 60_000 })((it) => {
    it.scoped(
      "a stream with its call's token becomes the call's media: the greeting plays with marks; DTMF is taken",
      () =>
        Effect.gen(function*() {
          const c = yield* call
          const stream = yield* open(c.route)
          yield* stream.until(
            "the greeting's first audio and mark",
            () => stream.audio().length > 0 && stream.marks().length > 0
          )
          assert.isTrue(c.attached())
          const connected = c.reports.find((r) => r._tag === "MediaConnected")
          assert.deepInclude(connected, { streamId: stream.streamSid })
          // the carrier plays it: marks come back as time passes, and the next chunks follow
          const sent = stream.audio().length
          yield* TestClock.adjust("1 second")
          yield* stream.until("more of the greeting after the echoes", () => stream.audio().length > sent)
          assert.isTrue(stream.marks().some((m) => m.echoedAt !== undefined && !m.cleared))
          yield* stream.dtmf("5")
          yield* TestClock.adjust("100 millis")
          assert.isUndefined(stream.closed())
          assert.deepStrictEqual(stream.violations(), [])
          assert.strictEqual(c.reports.filter((r) => r._tag === "MediaStopped").length, 0)
        })
    )

    it.scoped(
      "refused before start: not JSON, binary, media/mark/dtmf or an unknown event before start, a start without a " +
        "sid or token, a wrong format",
      () =>
        Effect.gen(function*() {
          const c = yield* call
          const cases: ReadonlyArray<readonly [string, ReadonlyArray<string | Uint8Array>, string]> = [
            ["not JSON", ["{\"event\": \"start\""], "a message that is not JSON"],
            ["binary", [new Uint8Array([1, 2, 3])], "a binary message"],
            ["not an object", ["5"], "a message that is not an object"],
            ["null", ["null"], "a message that is not an object"],
            ["media before start", [mediaMessage("MZ1", "/w==")], "media before start"],
            [
              "mark before start",
              [JSON.stringify({ event: "mark", streamSid: "MZ1", mark: { name: "x" } })],
              "mark before start"
            ],
            [
              "dtmf before start",
              [JSON.stringify({ event: "dtmf", streamSid: "MZ1", dtmf: { digit: "1" } })],
              "dtmf before start"
            ],
            ["unknown event", [JSON.stringify({ event: "hello" })], "an unknown event before start"],
            ["no streamSid", [startMessage({ token: c.route.token })], "start without a streamSid"],
            ["no token", [startMessage({ streamSid: "MZ1" })], "start without a token"],
            [
              "not μ-law",
              [startMessage({
                streamSid: "MZ1",
                token: c.route.token,
                mediaFormat: { encoding: "audio/x-l16", sampleRate: 16000, channels: 1 }
              })],
              "media format is not μ-law 8 kHz mono"
            ],
            [
              "a null media format",
              [startMessage({ streamSid: "MZ1", token: c.route.token, mediaFormat: null })],
              "media format is not μ-law 8 kHz mono"
            ]
          ]
          for (const [what, frames, reason] of cases) {
            const stream = yield* open(c.route, { start: false })
            yield* stream.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }))
            for (const frame of frames) yield* stream.send(frame)
            const closed = yield* closeOf(stream)
            assertRefused(closed, reason)
            assert.isFalse(c.attached(), what)
          }
          assert.deepStrictEqual(c.reports, [])
          // the token was never spent by a refused start: the call's stream still gets through with it
          const good = yield* open(c.route)
          yield* connected(c)
          assert.isUndefined(good.closed())
        })
    )

    it.scoped("refused: a wrong token, another process's token, a replayed token, a call not in this process", () =>
      Effect.gen(function*() {
        const c = yield* call
        const server = yield* MediaServer
        const [sessionPart, expiry, mac] = c.route.token.split(".") as [string, string, string]
        const forged: ReadonlyArray<readonly [string, string]> = [
          ["garbage", "token malformed"],
          ["a.b.c.d", "token malformed"],
          [`${crypto.randomUUID()}.${expiry}.${mac}`, "token bad signature"],
          [`${sessionPart}.${Number(expiry) + 60_000}.${mac}`, "token bad signature"],
          [signMediaToken(Redacted.make("another process's key"), c.sessionId, Number(expiry)), "token bad signature"]
        ]
        for (const [token, reason] of forged) {
          assertRefused(yield* closeOf(yield* open(c.route, { token })), reason)
        }
        assert.isFalse(c.attached())
        assert.deepStrictEqual(c.reports, [])

        // a token of this process for a call it does not hold
        const elsewhere = yield* server.tokenFor(crypto.randomUUID())
        assertRefused(yield* closeOf(yield* open(c.route, { token: elsewhere })), "the call is not in this process")

        // one use: the second stream with the token is refused, the first goes on undisturbed
        const first = yield* open(c.route)
        yield* connected(c)
        assertRefused(yield* closeOf(yield* open(c.route)), "token already used")
        assert.strictEqual(c.reports.filter((r) => r._tag === "MediaConnected").length, 1)
        assert.isUndefined(first.closed())
        const heard = first.audio().length
        yield* TestClock.adjust("1 second")
        yield* first.until("the first stream to go on", () => first.audio().length > heard)
      }))

    it.scoped("a token is good for TOKEN_LIFETIME_MS by the Clock, and refused a millisecond later", () =>
      Effect.gen(function*() {
        const onTime = yield* call
        const late = yield* call
        yield* TestClock.adjust(TOKEN_LIFETIME_MS)
        const accepted = yield* open(onTime.route)
        yield* connected(onTime)
        assert.isUndefined(accepted.closed())
        yield* TestClock.adjust(1)
        assertRefused(yield* closeOf(yield* open(late.route)), "token expired")
        assert.isFalse(late.attached())
        assert.deepStrictEqual(late.reports, [])
      }))

    it.scoped("a socket that does not start within START_TIMEOUT_MS is closed", () =>
      Effect.gen(function*() {
        const c = yield* call
        const silent = yield* open(c.route, { start: false })
        const connectedOnly = yield* open(c.route, { start: false })
        yield* connectedOnly.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }))
        yield* TestClock.adjust(START_TIMEOUT_MS - 1)
        assert.isUndefined(silent.closed())
        yield* TestClock.adjust(1)
        assertRefused(yield* closeOf(silent), "no start within 10 s")
        assertRefused(yield* closeOf(connectedOnly), "no start within 10 s")
        assert.isFalse(c.attached())
      }))

    it.scoped("an accepted stream that breaks the protocol is closed, and the call hears why", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string, (streamSid: string) => string, string | RegExp]> = [
          ["not JSON", () => "{\"event\": \"media\",", "a message that is not JSON"],
          [
            "an unknown stream",
            () => mediaMessage("MZ00000000000000000000000000000000", "/w=="),
            "media for another stream"
          ],
          ["base64 garbage", (sid) => mediaMessage(sid, "@@not*base64@@"), "a media payload that is not base64"],
          ["an empty payload", (sid) => mediaMessage(sid, ""), "a media payload that is not base64"],
          [
            "over a second of audio",
            (sid) => mediaMessage(sid, Buffer.alloc(8_001, 0xff).toString("base64")),
            "a media payload over 1 s"
          ],
          ["a second start", (sid) => startMessage({ streamSid: sid, token: "x" }), "a second start"],
          [
            "a dtmf without a digit",
            (sid) => JSON.stringify({ event: "dtmf", streamSid: sid, dtmf: { digit: "xy" } }),
            "a dtmf event without a digit"
          ],
          [
            "a mark without a name",
            (sid) => JSON.stringify({ event: "mark", streamSid: sid, mark: {} }),
            "a mark without a name"
          ],
          // three bytes a character: a reason cut at 120 characters would not fit a close frame (123 bytes)
          [
            "an unknown event named in CJK",
            (sid) => JSON.stringify({ event: "語".repeat(60), streamSid: sid }),
            /^an unknown event 語+$/
          ]
        ]
        for (const [what, frame, reason] of cases) {
          const c = yield* call
          const stream = yield* open(c.route)
          yield* connected(c, what)
          yield* stream.send(frame(stream.streamSid))
          assertRefused(yield* closeOf(stream), reason)
          yield* c.until(what, () => c.reports.some((r) => r._tag === "MediaStopped"))
          const stopped = c.reports.find((r) => r._tag === "MediaStopped") as Extract<
            EngineReport,
            { _tag: "MediaStopped" }
          >
          if (typeof reason === "string") assert.strictEqual(stopped.reason, reason, what)
        }
      }))

    it.scoped(
      "a frame over the server's 64 KiB limit closes the socket with 1009 (message too big); the call hears the " +
        "stream end",
      () =>
        Effect.gen(function*() {
          const c = yield* call
          const stream = yield* open(c.route)
          yield* connected(c)
          yield* stream.send(mediaMessage(stream.streamSid, Buffer.alloc(60 * 1024, 0xff).toString("base64")))
          const closed = yield* closeOf(stream)
          assert.strictEqual(closed.code, 1009, JSON.stringify(closed))
          yield* c.until("the media stopped", () => c.reports.some((r) => r._tag === "MediaStopped"))
          // the server is fine: the next call's stream is taken
          const next = yield* call
          yield* open(next.route)
          yield* connected(next)
        })
    )
  })
})
